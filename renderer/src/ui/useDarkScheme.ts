import { useEffect, useState } from 'react';

const QUERY = '(prefers-color-scheme: dark)';

/** Whether the OS shows dark colours now; follows changes. */
export function useDarkScheme(): boolean {
  const [dark, setDark] = useState(() => window.matchMedia(QUERY).matches);
  useEffect(() => {
    const media = window.matchMedia(QUERY);
    const onChange = (): void => setDark(media.matches);
    media.addEventListener('change', onChange);
    return () => media.removeEventListener('change', onChange);
  }, []);
  return dark;
}
