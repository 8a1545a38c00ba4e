// A stand-in for `pi --mode rpc` with the quirks the client must survive, for fast client
// tests (the real pi runs in test/rpc/real-pi.test.ts). Run as
//   node --import tsx fake-pi-rpc.ts --mode rpc [--stubborn]
// stdin commands (JSONL, answered with pi's response shape, echoing `id`):
//   {type:"wait", ms}          answers after `ms` (so answers can come out of order)
//   {type:"emit", records:[…]} writes each record to stdout as is, then answers
//   {type:"garbage"}           writes a line that is not JSON, then answers
//   {type:"crash", code}       writes two stderr lines and exits with `code`, unanswered
//   {type:"silent"}            never answers
//   {type:"fail"}              answers success:false
//   {type:"abort"}             answers at once (not with --stubborn)
//   {type:"prompt", message}   answers; a message "emit <json array>" first writes those records
//   {type:"tool"}              starts a long-running child (as pi's bash tool would), answers {pid}
//   {type:"get_commands"}      answers {commands: []}, or pi-ide's `ide` command with --with-ide
//   anything else              answers success:true with data {echo: <command>}
// --stubborn: ignores abort, EOF on stdin and SIGTERM (only SIGKILL ends it).
// --with-ide: has pi-ide's `/ide`, which asks "Connect to IDE" over the door at 4242/40123.
import { spawn } from 'node:child_process';
import { JsonlDecoder, encodeJsonl } from '../../src/rpc/jsonl.ts';

const stubborn = process.argv.includes('--stubborn');
const withIde = process.argv.includes('--with-ide');
const out = (record: unknown): void => void process.stdout.write(encodeJsonl(record));

if (stubborn) process.on('SIGTERM', () => process.stderr.write('fake pi: ignoring SIGTERM\n'));
// Keeps the process alive after stdin ends, as a stuck pi would.
const keepAlive = stubborn ? setInterval(() => {}, 1000) : null;

function handle(command: Record<string, unknown>): void {
  const id = command.id;
  const ok = (data?: unknown): void => out({ id, type: 'response', command: command.type, success: true, ...(data === undefined ? {} : { data }) });
  switch (command.type) {
    case 'tool': {
      // Like a bash tool's command: a child in pi's process group that outlives pi if no one cleans up.
      const child = spawn('sleep', ['300'], { stdio: 'ignore' });
      child.unref();
      ok({ pid: child.pid });
      return;
    }
    case 'wait':
      setTimeout(() => ok({ waited: command.ms }), Number(command.ms));
      return;
    case 'emit':
      for (const record of command.records as unknown[]) out(record);
      ok();
      return;
    case 'garbage':
      process.stdout.write('this is not json\n');
      ok();
      return;
    case 'crash':
      process.stderr.write('fatal: something broke\nat the fake pi\n');
      process.exit(Number(command.code ?? 1));
      return;
    case 'silent':
      return;
    case 'fail':
      out({ id, type: 'response', command: 'fail', success: false, error: 'it failed on purpose' });
      return;
    case 'abort':
      if (!stubborn) ok();
      return;
    case 'get_commands':
      ok({ commands: withIde ? [{ name: 'ide', description: 'Connect to a running IDE', source: 'extension' }] : [] });
      return;
    case 'prompt': {
      const message = String(command.message);
      if (withIde && message === '/ide') {
        const options = ['Neovim · /p · pid=5000 port=41000', 'Patchbay · /p · pid=4242 port=40123'];
        out({ type: 'extension_ui_request', id: 'ide-1', method: 'select', title: 'Connect to IDE', options });
      }
      if (message.startsWith('emit ')) for (const record of JSON.parse(message.slice(5)) as unknown[]) out(record);
      ok();
      return;
    }
    default:
      ok({ echo: command });
  }
}

const decoder = new JsonlDecoder({
  onRecord: (value) => handle(value as Record<string, unknown>),
  onError: (err) => process.stderr.write(`fake pi: ${err.message}\n`),
});
process.stdin.on('data', (chunk: Buffer) => decoder.push(chunk));
process.stdin.on('end', () => {
  decoder.end();
  if (!stubborn) process.exit(0);
});
void keepAlive;
