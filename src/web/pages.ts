// The pages Patchbay writes itself: when the control server cannot serve the renderer, and
// the sign-in pages `patchbay open` hands the browser (sign-in-pages.ts).

/** A small page; `head` is extra markup for its head. */
export function page(title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">${head}
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
