import { describe, it } from 'vitest';
import { expectOptions, expectUsage, idRefusals, pagingRefusals, pagingRows, withGlobals, type OkRow, type UsageRow } from '../options-table.js';

describe('destinations list options()', () => {
  const ok = pagingRows(['destinations', 'list'], {});
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!, ok[6]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const refused: UsageRow[] = [
    ...pagingRefusals(['destinations', 'list']),
    ['an argument (commander)', ['destinations', 'list', 'dst_eu_s3'], /too many arguments for 'list'. Expected 0 arguments but got 1/],
    ['an unknown option (commander)', ['destinations', 'list', '--page', '2'], /unknown option '--page'/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});

describe('destinations get options()', () => {
  const ok: OkRow[] = [
    ['an id', ['destinations', 'get', 'dst_eu_s3'], { destinationId: 'dst_eu_s3' }],
    ['an id with spaces around is trimmed', ['destinations', 'get', ' dst_eu_s3 '], { destinationId: 'dst_eu_s3' }],
    ['an id with dots inside', ['destinations', 'get', 'dst_eu_s3.v2'], { destinationId: 'dst_eu_s3.v2' }],
  ];
  it.each(ok)('%s', (_name, argv, expected, env) => expectOptions(argv, expected, env));

  it.each(withGlobals([ok[0]!]))('%s', (_name, argv, expected, env, verb) => expectOptions(argv, expected, env, verb));

  const refused: UsageRow[] = [
    ...idRefusals(['destinations', 'get'], 'destination id'),
    ['no id (commander)', ['destinations', 'get'], /^missing required argument 'destinationId'$/],
    ['two ids (commander)', ['destinations', 'get', 'dst_eu_s3', 'dst_eu_s3_2'], /too many arguments for 'get'. Expected 1 argument but got 2/],
    ['a paging flag (commander)', ['destinations', 'get', 'dst_eu_s3', '--limit', '5'], /unknown option '--limit'/],
  ];
  it.each(refused)('refuses %s', (_name, argv, message, env) => expectUsage(argv, message, env));
});
