// Patchbay's own state: one JSON file, `<home>/config.json`, written through `conf` so the
// desktop app's electron-store (conf underneath) reads and writes the very same file.
// Layout: { "settings": {…only what the person changed…}, "memory": { "kind:cwd": editorId | null } }.
import { mkdirSync, readFileSync, renameSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import Conf from 'conf';
import type { PatchbaySettings } from '../api/types.ts';
import { parseStoredSettings, validateSettingsPatch } from './defaults.ts';
import { isObject } from '../api/json.ts';
import { HOME_FILES } from '../fs/home-files.ts';
import { localOnlyRefusal } from './local-only.ts';

export const STORE_FILE = HOME_FILES.config;
/** Session keys remembered; the least recently remembered go first. */
export const MEMORY_LIMIT = 1000;

/** Editor identity id, or null: "Patchbay reviews this session itself". */
export type Remembered = string | null;

export type StoreFile = Record<string, unknown>;

/**
 * Opens the file: `conf` headless; the desktop app passes electron-store (a conf subclass),
 * so each process has one writer and both read and write the same file the same way.
 */
export type StoreBackend = (options: ReturnType<typeof storeFileOptions>) => Conf<StoreFile>;

const confBackend: StoreBackend = (options) => new Conf<StoreFile>(options);

/** The conf / electron-store options that address Patchbay's file, shared with the desktop app. */
export function storeFileOptions(home: string) {
  return {
    cwd: home,
    configName: 'config',
    fileExtension: 'json',
    projectName: 'patchbay',
    // Memory keys hold paths with dots; they are never key paths.
    accessPropertiesByDotNotation: false,
    configFileMode: 0o600,
  } as const;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A name for the moved-aside copy that no earlier copy already holds. */
function corruptName(path: string, now: Date): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  let candidate = `${path}.corrupt-${stamp}`;
  for (let n = 1; existsSync(candidate); n++) candidate = `${path}.corrupt-${stamp}-${n}`;
  return candidate;
}

/**
 * Moves an unreadable config.json aside so nothing in it is lost and Patchbay can start.
 * Returns the warning for the person, or null when the file is fine or absent.
 */
function setAsideIfUnreadable(path: string): string | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let problem: string;
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed)) return null;
    problem = `its top level is ${parsed === null ? 'null' : Array.isArray(parsed) ? 'a list' : `a ${typeof parsed}`}, not an object`;
  } catch (error) {
    problem = errorMessage(error);
  }
  const aside = corruptName(path, new Date());
  renameSync(path, aside);
  return `${path} could not be read (${problem}); it was moved to ${aside} and Patchbay started from its defaults`;
}

/** Keeps entries whose value is an editor id or null; the rest are reported. */
function parseMemory(raw: unknown, source: string): { memory: Record<string, Remembered>; warnings: string[] } {
  const memory: Record<string, Remembered> = {};
  if (raw === undefined) return { memory, warnings: [] };
  if (!isObject(raw)) return { memory, warnings: [`${source}: "memory" must be an object; remembered bindings ignored`] };
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value === 'string' || value === null) memory[key] = value;
    else dropped.push(key);
  }
  const warnings = dropped.length
    ? [`${source}: remembered bindings for ${dropped.map((k) => `"${k}"`).join(', ')} are not an editor id or null; ignored`]
    : [];
  return { memory, warnings };
}

export class PatchbayStore {
  readonly path: string;
  readonly #conf: Conf<StoreFile>;
  /** Problems met while opening (a file moved aside), kept for the whole run. */
  readonly #openWarnings: string[] = [];
  #settings!: PatchbaySettings;
  #memory!: Record<string, Remembered>;
  #contentWarnings: string[] = [];

  private constructor(home: string, backend: StoreBackend) {
    this.path = join(home, STORE_FILE);
    const setAside = setAsideIfUnreadable(this.path);
    if (setAside) this.#openWarnings.push(setAside);
    this.#conf = backend(storeFileOptions(home));
    this.#load(this.#conf.store);
  }

  /** Opens (creating the directory `0700` when missing) the store in `home`. */
  static open(home: string, backend: StoreBackend = confBackend): PatchbayStore {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    return new PatchbayStore(home, backend);
  }

  /** Problems the person should see: a file moved aside, stored values that were ignored. */
  get warnings(): string[] {
    return [...this.#openWarnings, ...this.#contentWarnings];
  }

  /** The defaults merged with what is stored. Frozen and shared: the relay reads it per frame. */
  settings(): PatchbaySettings {
    return this.#settings;
  }

  /**
   * Validates and stores `patch`; stored keys it does not name are kept as they are. Only
   * `local` (the CLI run as the person, writing the file itself) may change LOCAL_ONLY_SETTINGS.
   */
  updateSettings(patch: unknown, { local = false }: { local?: boolean } = {}): PatchbaySettings {
    const valid = validateSettingsPatch(patch);
    const refusal = local ? null : localOnlyRefusal(valid, this.path);
    if (refusal !== null) throw refusal;
    this.#write((file) => {
      const stored = isObject(file.settings) ? file.settings : {};
      file.settings = { ...stored, ...valid };
    });
    return this.settings();
  }

  /** undefined = never seen; null = "Patchbay reviews"; otherwise an editor identity id. */
  memory(key: string): Remembered | undefined {
    return Object.hasOwn(this.#memory, key) ? this.#memory[key] : undefined;
  }

  remember(key: string, editorId: Remembered): void {
    const keys = Object.keys(this.#memory);
    if (keys[keys.length - 1] === key && this.#memory[key] === editorId) return;
    this.#write((file) => {
      const { memory } = parseMemory(file.memory, this.path);
      delete memory[key];
      memory[key] = editorId;
      const excess = Object.keys(memory).length - MEMORY_LIMIT;
      for (const old of Object.keys(memory).slice(0, Math.max(0, excess))) delete memory[old];
      file.memory = memory;
    });
  }

  forget(key: string): void {
    if (!Object.hasOwn(this.#memory, key)) return;
    this.#write((file) => {
      const { memory } = parseMemory(file.memory, this.path);
      delete memory[key];
      file.memory = memory;
    });
  }

  /** Re-reads the file, for when another process (the desktop app's electron-store) changed it. */
  reload(): void {
    this.#load(this.#read());
  }

  #load(file: StoreFile): void {
    const settings = parseStoredSettings(file.settings, this.path);
    const memory = parseMemory(file.memory, this.path);
    this.#settings = deepFreeze(settings.settings);
    this.#memory = memory.memory;
    this.#contentWarnings = [...settings.warnings, ...memory.warnings];
  }

  /** The file as it is now; one that stopped parsing since open is moved aside like at open. */
  #read(): StoreFile {
    const setAside = setAsideIfUnreadable(this.path);
    if (setAside) this.#openWarnings.push(setAside);
    return this.#conf.store;
  }

  /** Read-modify-write on the current file, so keys written by another writer survive. */
  #write(change: (file: StoreFile) => void): void {
    const file = { ...this.#read() };
    change(file);
    this.#conf.store = file;
    this.#load(file);
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
