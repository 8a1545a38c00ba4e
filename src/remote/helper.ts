// The helper Patchbay runs on the remote side of a tunnel: one POSIX shell that writes the door's
// lockfiles into the remote user's lock dirs, answers "who is on this port" from the remote's
// /proc, and removes what it wrote when its stdin ends, which is when the connection does. Its
// pid is what the lockfiles name, so agents there see a live IDE exactly while the tunnel is up.
//
// The remote login shell (any: sh, bash, zsh, fish, csh) runs only BOOTSTRAP, one line with no
// newline and nothing but single quotes, which starts /bin/sh reading the script from stdin up
// to a line ".". So the script never shows in the remote's process list, and the protocol that
// follows on the same stdin is line by line (sh's `read` takes one byte at a time from a pipe).
//
// Protocol, one line each way:
//   → write <pi|claude> <port> <token> <lockfile json>     ← wrote <dialect> <path> | error <dialect> <why>
//   → forget <pi|claude> <port> <token>   (a lockfile an earlier tunnel left, removed if it still holds its token)
//   → who <req> <port>                    ← conn <req> <agent port> <pid> <inode> … done <req>
//   → proc <req> <pid>                    ← cwd <req> <path>, cmd <req> <command line>, done <req>
//   → get <req> <max bytes> - <path>     ← file <req> + data <req> <base64>… | gone <req> | big <req>, then done <req> (a file no map covers, for its review)
//   → beat <seconds>                      (Patchbay is there: without another beat within <seconds>, it ends as if its input had)
//   ← hello 1 <pid> · dir pi <path> · dir claude <path>   (at start)
//   end of stdin (or HUP/TERM/PIPE): its lockfiles are removed if they still hold its tokens, and it exits.
// The beats cover what sshd may not notice for hours: a client gone without a word (a laptop
// closed, a network cut). Then the tunnel is dead but the helper's stdin stays open, and its
// lockfile would name a live pid and a port that still accepts.

export const HELPER_PROTOCOL = 1;

/** What the remote login shell runs: /bin/sh, reading the script from stdin. */
export const BOOTSTRAP =
  `exec /bin/sh -c 's=;n=$(printf "\\nx");n=\${n%x};while IFS= read -r l;do [ "$l" = . ] && break;s="$s$l$n";done;eval "$s"'`;

/** The script, as sent after BOOTSTRAP (ends with the "." line). */
export const HELPER_SCRIPT = String.raw`umask 077
pd=${'$'}{PI_IDE_LOCK_DIR:-$HOME/.pi/ide}
cd=${'$'}{CLAUDE_CONFIG_DIR:-$HOME/.claude}/ide
f_pi=; t_pi=; f_claude=; t_claude=; w=
say() { printf '%s\n' "$*"; }
dirof() { case $1 in pi) d=$pd;; claude) d=$cd;; *) return 1;; esac; }
prep() {
  if [ -L "$d" ]; then say "error $1 $d is a symlink: Patchbay writes lockfiles only into a real directory of yours"; return 1; fi
  [ -d "$d" ] || mkdir -p "$d" 2>/dev/null || { say "error $1 cannot create $d"; return 1; }
  if [ -L "$d" ] || [ ! -d "$d" ]; then say "error $1 $d is not a directory"; return 1; fi
  [ -O "$d" ] || { say "error $1 $d is not yours: Patchbay writes lockfiles only into a directory of yours"; return 1; }
  chmod 700 "$d" 2>/dev/null || { say "error $1 cannot make $d private (chmod 700)"; return 1; }
}
mine() { [ -f "$1" ] && [ ! -L "$1" ] && grep -qF -- "$2" "$1" 2>/dev/null; }
wr() {
  dirof "$1" || return 0
  case $2 in ''|*[!0-9]*) say "error $1 bad port"; return 0;; esac
  prep "$1" || return 0
  f=$d/$2.lock; t=$d/.$2.lock.$$.tmp
  if [ -d "$f" ] && [ ! -L "$f" ]; then say "error $1 $f is a directory"; return 0; fi
  rm -f "$t"
  if (set -C; printf '%s' "$4" > "$t") 2>/dev/null && chmod 600 "$t" && mv -f "$t" "$f"; then
    case $1 in pi) f_pi=$f; t_pi=$3;; claude) f_claude=$f; t_claude=$3;; esac
    say "wrote $1 $f"
  else
    rm -f "$t"; say "error $1 cannot write $f"
  fi
}
forget() {
  dirof "$1" || return 0
  case $2 in ''|*[!0-9]*) return 0;; esac
  mine "$d/$2.lock" "$3" && rm -f "$d/$2.lock"
}
who() {
  case $2 in ''|*[!0-9]*) say "done $1"; return 0;; esac
  h=$(printf '%04X' "$2")
  s=$(awk -v h="$h" 'function hex(x, i, v) { v = 0; for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789ABCDEF", substr(x, i, 1)) - 1; return v }
    FNR > 1 && $4 == "01" { n = split($3, r, ":"); if (r[n] == h) { m = split($2, l, ":"); printf "%s:%d ", $10, hex(l[m]) } }' /proc/net/tcp /proc/net/tcp6 2>/dev/null)
  if [ -n "$s" ]; then
    ls -l /proc/[0-9]*/fd 2>/dev/null | awk -v s="$s" -v q="$1" '
      BEGIN { n = split(s, x, " "); for (i = 1; i <= n; i++) { split(x[i], y, ":"); port[y[1]] = y[2] } }
      /^\/proc\/[0-9]+\/fd:$/ { split($0, p, "/"); pid = p[3]; next }
      $NF ~ /^socket:\[[0-9]+\]$/ { i = substr($NF, 9, length($NF) - 9); if (i in port) print "conn " q " " port[i] " " pid " " i }'
  fi
  say "done $1"
}
proc() {
  case $2 in ''|*[!0-9]*) say "done $1"; return 0;; esac
  c=$(readlink "/proc/$2/cwd" 2>/dev/null) && say "cwd $1 $c"
  [ -r "/proc/$2/cmdline" ] && say "cmd $1 $(tr '\000\n' '  ' < "/proc/$2/cmdline" | cut -c1-2000)"
  say "done $1"
}
get() {
  case $2 in ''|*[!0-9]*) say "done $1"; return 0;; esac
  case $3 in /proc/*|/sys/*|/dev/*) ;; *)
    if [ ! -e "$3" ] && [ ! -L "$3" ]; then say "gone $1"
    elif [ -f "$3" ] && [ -r "$3" ]; then
      n=$(wc -c < "$3" | tr -d ' ')
      if [ "$n" -gt "$2" ]; then say "big $1"; else say "file $1"; base64 < "$3" | sed "s/^/data $1 /"; fi
    fi;;
  esac
  say "done $1"
}
arm() {
  case $1 in ''|*[!0-9]*) return 0;; esac
  [ -n "$w" ] && kill "$w" 2>/dev/null
  (trap 'kill $s 2>/dev/null; exit 0' TERM; sleep "$1" & s=$!; wait $s; kill -TERM $$) </dev/null >/dev/null 2>&1 &
  w=$!
}
bye() {
  [ -n "$w" ] && kill "$w" 2>/dev/null
  w=
  [ -n "$f_pi" ] && mine "$f_pi" "$t_pi" && rm -f "$f_pi"
  [ -n "$f_claude" ] && mine "$f_claude" "$t_claude" && rm -f "$f_claude"
  f_pi=; f_claude=
}
trap 'bye; exit 0' HUP INT TERM PIPE
say "hello 1 $$"
say "dir pi $pd"
say "dir claude $cd"
while read -r c a b t r; do
  case $c in
    write) wr "$a" "$b" "$t" "$r";;
    forget) forget "$a" "$b" "$t";;
    who) who "$a" "$b";;
    proc) proc "$a" "$b";;
    beat) arm "$a";;
    get) get "$a" "$b" "$r";;
  esac
done
bye
.
`;

export type HelperLine =
  | { kind: 'hello'; protocol: number; pid: number }
  | { kind: 'dir'; dialect: 'pi' | 'claude'; path: string }
  | { kind: 'wrote'; dialect: 'pi' | 'claude'; path: string }
  | { kind: 'error'; dialect: 'pi' | 'claude'; reason: string }
  | { kind: 'conn'; req: number; agentPort: number; pid: number; inode: number }
  | { kind: 'cwd'; req: number; path: string }
  | { kind: 'cmd'; req: number; command: string }
  | { kind: 'data'; req: number; base64: string }
  | { kind: 'file'; req: number }
  | { kind: 'gone'; req: number }
  | { kind: 'big'; req: number }
  | { kind: 'done'; req: number };

const DIALECT = '(pi|claude)';
const PATTERNS: [RegExp, (m: RegExpExecArray) => HelperLine][] = [
  [/^hello (\d+) (\d+)$/, (m) => ({ kind: 'hello', protocol: Number(m[1]), pid: Number(m[2]) })],
  [new RegExp(`^dir ${DIALECT} (/.*)$`), (m) => ({ kind: 'dir', dialect: m[1] as 'pi' | 'claude', path: m[2]! })],
  [new RegExp(`^wrote ${DIALECT} (/.*)$`), (m) => ({ kind: 'wrote', dialect: m[1] as 'pi' | 'claude', path: m[2]! })],
  [new RegExp(`^error ${DIALECT} (.*)$`), (m) => ({ kind: 'error', dialect: m[1] as 'pi' | 'claude', reason: m[2]! })],
  [/^conn (\d+) (\d+) (\d+) (\d+)$/, (m) => ({ kind: 'conn', req: Number(m[1]), agentPort: Number(m[2]), pid: Number(m[3]), inode: Number(m[4]) })],
  [/^cwd (\d+) (\/.*)$/, (m) => ({ kind: 'cwd', req: Number(m[1]), path: m[2]! })],
  [/^cmd (\d+) (.*)$/, (m) => ({ kind: 'cmd', req: Number(m[1]), command: m[2]!.trim() })],
  [/^data (\d+) ([A-Za-z0-9+/=]+)$/, (m) => ({ kind: 'data', req: Number(m[1]), base64: m[2]! })],
  [/^file (\d+)$/, (m) => ({ kind: 'file', req: Number(m[1]) })],
  [/^gone (\d+)$/, (m) => ({ kind: 'gone', req: Number(m[1]) })],
  [/^big (\d+)$/, (m) => ({ kind: 'big', req: Number(m[1]) })],
  [/^done (\d+)$/, (m) => ({ kind: 'done', req: Number(m[1]) })],
];

/** One line of the helper's stdout; null for anything else (a login banner a shell rc prints). */
export function parseHelperLine(line: string): HelperLine | null {
  for (const [pattern, build] of PATTERNS) {
    const m = pattern.exec(line);
    if (m) return build(m);
  }
  return null;
}

/** A `write` line; the lockfile JSON must be one line (JSON.stringify's is). */
export function writeLine(dialect: 'pi' | 'claude', port: number, token: string, json: string): string {
  return `write ${dialect} ${port} ${token} ${json}\n`;
}
