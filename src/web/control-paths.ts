// The control server's HTTP paths, in a module of their own: the CLI names them without
// loading the server (and its sign-in machinery) on every command.
export { API_PATH } from './browser-protocol.ts';
/** POST with the CLI's bearer token: a one-time sign-in link for a browser, to print. */
export const OPEN_TOKEN_PATH = '/open-token';
/** POST with the CLI's bearer token: a page (a file only the user can read) that signs a browser in once. */
export const OPEN_PAGE_PATH = '/open-page';
/** POST with the CLI's bearer token: signs every browser out. */
export const REVOKE_PATH = '/revoke-sessions';
