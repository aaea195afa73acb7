/** Reading `pg_restore -l` as pg_restore writes it (the listing below is pg_dump 15's, trimmed). */
import { describe, expect, it } from 'vitest';
import { extensionNames, hasTableData, parseTocListing, relationEntries } from '../../src/restore/archive/toc.js';

const LISTING = `;
; Archive created at 2026-11-24 06:43:57 UTC
;
2; 3079 16385 EXTENSION - pgcrypto 
3407; 0 0 COMMENT - EXTENSION pgcrypto 
3; 3079 16422 EXTENSION - uuid-ossp 
7; 2615 16387 SCHEMA - DATA postgres
221; 1259 16406 TABLE DATA x postgres
220; 1259 16403 TABLE Sales 2024 my table owner with space
219; 1259 16397 MATERIALIZED VIEW public mv postgres
3371; 0 16406 TABLE DATA DATA x postgres
3381; 0 0 SEQUENCE SET public t_id_seq postgres
3380; 0 0 SEQUENCE OWNED BY public t_id_seq postgres
3257; 0 0 INDEX ATTACH public p1_k_idx postgres
3369; 0 16397 MATERIALIZED VIEW DATA public mv postgres
3222; 2606 16396 FK CONSTRAINT public t t_fk postgres
`;

describe('parseTocListing', () => {
  const toc = parseTocListing(LISTING);

  it('tells relations from data entries by the catalog they live in, whatever the schema is called', () => {
    expect(relationEntries(toc).map((e) => [e.desc, e.words])).toEqual([
      ['TABLE', 'DATA x postgres'],
      ['TABLE', 'Sales 2024 my table owner with space'],
      ['MATERIALIZED VIEW', 'public mv postgres'],
    ]);
    expect(toc.entries.find((e) => e.words === 'public mv postgres' && e.tableoid === 0)?.desc).toBe('MATERIALIZED VIEW DATA');
  });

  it('reads multi-word descs whole', () => {
    expect(toc.entries.map((e) => e.desc)).toEqual([
      'EXTENSION',
      'COMMENT',
      'EXTENSION',
      'SCHEMA',
      'TABLE',
      'TABLE',
      'MATERIALIZED VIEW',
      'TABLE DATA',
      'SEQUENCE SET',
      'SEQUENCE OWNED BY',
      'INDEX ATTACH',
      'MATERIALIZED VIEW DATA',
      'FK CONSTRAINT',
    ]);
  });

  it('names the extensions the archive creates, and whether it holds table data', () => {
    expect(extensionNames(toc)).toEqual(['pgcrypto', 'uuid-ossp']);
    expect(hasTableData(toc)).toBe(true);
    expect(hasTableData(parseTocListing('219; 1259 16397 TABLE public t postgres\n'))).toBe(false);
  });
});
