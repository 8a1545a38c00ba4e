// The renderer's Content-Security-Policy: one string for the <meta> tag (built into
// index.html) and the response header the main process adds.
//
// style-src allows inline styles because CodeMirror mounts its theme as a <style> element
// in the document (style-mod only uses constructable sheets inside shadow roots).
// Scripts stay 'self' only: no inline script, no eval.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  // The browser face talks to the control server's WebSocket on the same origin.
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** The header form adds what a <meta> policy cannot carry (browsers ignore it there). */
export const CONTENT_SECURITY_POLICY_HEADER = `${CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`;

/** Vite's dev server needs its HMR socket and React's inline refresh preamble. */
export function devContentSecurityPolicy(devOrigin: string): string {
  const ws = devOrigin.replace(/^http/, 'ws');
  return CONTENT_SECURITY_POLICY.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'").replace(
    "connect-src 'self'",
    `connect-src 'self' ${ws}`,
  );
}
