// The few pages the control server writes itself, when it cannot serve the renderer.

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${title}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{font-size:.95em}</style>
</head>
<body>
<h1>${title}</h1>
${body}
</body>
</html>
`;
}

export function notBuiltPage(version: string): string {
  return page(
    'Patchbay’s UI is not built',
    `<p>Patchbay ${version} is running, but the web UI has not been built yet.</p>
<p>Run <code>npm run build</code> in Patchbay’s folder, then reload this page.</p>`,
  );
}

export function signInPage(): string {
  return page(
    'Open Patchbay from the command line',
    `<p>This page needs a sign-in link. Run <code>patchbay open</code> to open Patchbay in your browser,
or <code>patchbay open --print</code> to print a link.</p>`,
  );
}

export function expiredLinkPage(): string {
  return page(
    'This link has expired',
    `<p>Links made by <code>patchbay open</code> work once, within two minutes. Run
<code>patchbay open</code> again for a fresh one.</p>`,
  );
}
