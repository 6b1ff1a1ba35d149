import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, getJson } from './api';

/** Fetch `path` as JSON on mount and on `reload()`; the error is the host's own message. */
export function useLoad<T>(path: string | null): {
  data: T | undefined;
  error: ApiError | undefined;
  reload: () => void;
} {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const reload = useCallback(() => {
    if (path === null) return;
    getJson<T>(path).then(
      (value) => {
        setData(value);
        setError(undefined);
      },
      (failure: unknown) =>
        setError(failure instanceof ApiError ? failure : new ApiError('HTTP', String(failure), 0)),
    );
  }, [path]);
  useEffect(reload, [reload]);
  return { data, error, reload };
}
