// The victim's side of the autoconnect race (pi-settings-race.test.ts), run as the victim's uid:
// sets autoconnect in a project's settings file again and again for `ms`, and prints what each
// try said, as one JSON line: {"written":N,"refusals":{message:count}}.
//   node --import tsx test/settings/race-writer.ts <project> <ms>
import { projectSettingsFile, writeAutoconnect } from '../../src/settings/pi-settings.ts';

const [project, ms] = process.argv.slice(2);
if (!project || !ms) throw new Error('usage: race-writer.ts <project> <ms>');
const until = Date.now() + Number(ms);
const refusals: Record<string, number> = {};
let written = 0;
for (let i = 0; Date.now() < until; i++) {
  try {
    await writeAutoconnect(projectSettingsFile(project), i % 2 === 0);
    written++;
  } catch (error) {
    const message = (error as Error).message;
    refusals[message] = (refusals[message] ?? 0) + 1;
  }
}
process.stdout.write(`${JSON.stringify({ written, refusals })}\n`);
