// The model (from pi's own list) and the thinking level of a hosted session.
import { useId, useMemo } from 'react';
import type { HostedView } from '../../../src/api/types.ts';
import { useHub } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { ErrorText } from '../ui/ErrorText.tsx';
import { THINKING_LEVELS, modelOptions, parseModels } from './hosted-model.ts';
import { useHostedModels, useThinkingLevels } from './useHostedSession.ts';

interface Props {
  view: HostedView;
  enabled: boolean;
  merge(view: HostedView): void;
}

export function SessionPickers({ view, enabled, merge }: Props) {
  const { api } = useHub();
  const ids = { model: useId(), thinking: useId() };
  const command = useCommand();
  const listed = useHostedModels(view.id, enabled);
  const options = useMemo(() => modelOptions(parseModels(listed.models), view.model), [listed.models, view.model]);
  // pi's own list for this model (it changes with the model); the usual levels until it answers.
  const offered = useThinkingLevels(view.id, enabled, view.model) ?? THINKING_LEVELS;
  const levels = view.thinkingLevel === null || offered.includes(view.thinkingLevel) ? offered : [view.thinkingLevel, ...offered];

  const setModel = (key: string): void => {
    const choice = options.find((m) => m.key === key);
    if (choice === undefined) return;
    void command.run(async () => merge(await api.call('pi.setModel', { id: view.id, provider: choice.provider, modelId: choice.modelId })));
  };
  const setThinking = (level: string): void => {
    void command.run(async () => merge(await api.call('pi.setThinking', { id: view.id, level })));
  };

  return (
    <div className="toolbar hosted-pickers">
      <label htmlFor={ids.model}>Model</label>
      <select
        id={ids.model}
        value={view.model ?? ''}
        disabled={!enabled || command.busy || options.length === 0}
        onChange={(e) => setModel(e.target.value)}
      >
        {view.model === null && <option value="">{options.length === 0 ? 'No models listed' : 'Choose a model'}</option>}
        {options.map((m) => (
          <option key={m.key} value={m.key}>
            {m.name === m.modelId ? m.key : `${m.name} (${m.key})`}
          </option>
        ))}
      </select>
      <label htmlFor={ids.thinking}>Thinking level</label>
      <select
        id={ids.thinking}
        value={view.thinkingLevel ?? ''}
        disabled={!enabled || command.busy}
        onChange={(e) => setThinking(e.target.value)}
      >
        {view.thinkingLevel === null && <option value="">unknown</option>}
        {levels.map((level) => (
          <option key={level} value={level}>
            {level}
          </option>
        ))}
      </select>
      {listed.error !== null && <ErrorText>{listed.error}</ErrorText>}
      {command.error !== null && <ErrorText>{command.error}</ErrorText>}
    </div>
  );
}
