// pi-ide's `/ide` command asks which editor to connect to with an extension `select`: title
// "Connect to IDE", one option per lockfile, labelled `<ideName> · <folder> · pid=<pid> port=<port>`.
// A hosted pi is Patchbay's own, so Patchbay answers with its door when it is offered.

export interface DoorAddress {
  pid: number;
  port: number;
}

interface SelectLike {
  method: string;
  title: string;
  options?: string[];
}

export const IDE_DIALOG_TITLE = 'Connect to IDE';

/** The option naming Patchbay's door, or null when this is not that dialog or the door is not offered once. */
export function doorChoice(dialog: SelectLike, door: DoorAddress | null): string | null {
  if (door === null || dialog.method !== 'select' || dialog.title !== IDE_DIALOG_TITLE) return null;
  const suffix = ` · pid=${door.pid} port=${door.port}`;
  const matches = (dialog.options ?? []).filter((option) => option.endsWith(suffix));
  return matches.length === 1 ? matches[0]! : null;
}
