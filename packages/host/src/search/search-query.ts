import { OpenLegionError, SEARCH_QUERY_MAX_CHARS } from '@openlegion/protocol';

/**
 * The query as providers get it: control characters and runs of spaces made one space, trimmed.
 * Throws 400 SEARCH_QUERY_INVALID when nothing is left or it is longer than
 * {@link SEARCH_QUERY_MAX_CHARS}, saying what to do.
 */
export function checkedQuery(query: string): string {
  const clean = query
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (clean === '')
    throw new OpenLegionError('SEARCH_QUERY_INVALID', 'query is empty: say what to search for', {
      details: { field: 'query' },
    });
  const length = [...clean].length;
  if (length > SEARCH_QUERY_MAX_CHARS)
    throw new OpenLegionError(
      'SEARCH_QUERY_INVALID',
      `query is ${length} characters, more than the ${SEARCH_QUERY_MAX_CHARS} a search takes: search for the key terms only`,
      { details: { field: 'query', length, max: SEARCH_QUERY_MAX_CHARS } },
    );
  return clean;
}
