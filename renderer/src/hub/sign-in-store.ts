// The browser's sign-in, kept for every tab of Patchbay's origin in this browser profile: in
// IndexedDB, whose structured clone keeps a CryptoKey as it is (its secret cannot be exported,
// so a page that reads this origin's storage gets nothing it can take elsewhere), with a
// public note in localStorage whose `storage` event tells the other tabs it changed.
import type { SignInStore } from '../../../src/web/browser-hub.ts';
import type { KeptSignIn } from '../../../src/web/session-proof.ts';

const DB_NAME = 'patchbay';
const STORE = 'sign-in';
const KEY = 'current';
/** Holds the claim (public) of the sign-in kept, for the other tabs' `storage` event. */
const NOTE = 'patchbay.sign-in';

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB failed'));
  });
}

export function indexedDbSignIns(win: Window): SignInStore {
  let db: Promise<IDBDatabase> | null = null;
  const open = (): Promise<IDBDatabase> => {
    db ??= new Promise((resolve, reject) => {
      const req = win.indexedDB.open(DB_NAME, 1);
      req.onupgradeneeded = () => req.result.createObjectStore(STORE);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error ?? new Error('IndexedDB did not open'));
    });
    db.catch(() => (db = null));
    return db;
  };
  /** Runs `work` in one transaction and resolves once it has committed. */
  const transact = async <T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => Promise<T>): Promise<T> => {
    const tx = (await open()).transaction(STORE, mode);
    const done = new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    });
    const result = await work(tx.objectStore(STORE));
    await done;
    return result;
  };
  return {
    load: () => transact('readonly', async (store) => ((await request(store.get(KEY))) as KeptSignIn | undefined) ?? null),
    async save(signIn) {
      await transact('readwrite', (store) => request(store.put(signIn, KEY)));
      win.localStorage.setItem(NOTE, signIn.claim);
    },
    async forget(claim) {
      const forgot = await transact('readwrite', async (store) => {
        const kept = (await request(store.get(KEY))) as KeptSignIn | undefined;
        if (kept?.claim !== claim) return false;
        await request(store.delete(KEY));
        return true;
      });
      if (forgot) win.localStorage.removeItem(NOTE);
    },
    onChange: (cb) => win.addEventListener('storage', (event) => event.key === NOTE && cb()),
  };
}
