/**
 * JUnit XML as a CI system reads it: parsed by a real XML parser (python3's xml.etree.ElementTree),
 * not by our own regular expressions. A file that is not well-formed XML fails the parse.
 */
import { execa } from 'execa';

export interface JunitCase {
  classname: string | null;
  name: string | null;
  time: string | null;
  failure: { message: string | null; type: string | null; text: string } | null;
  skipped: { message: string | null } | null;
  /** Child element tags, in order (failure, skipped, ...). */
  children: string[];
}

export interface JunitSuite {
  /** The root element's tag: a drill writes one <testsuite>, no <testsuites> around it. */
  tag: string;
  attributes: Record<string, string>;
  cases: JunitCase[];
}

const READER = `
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
def case(tc):
    failure = tc.find('failure')
    skipped = tc.find('skipped')
    return {
        'classname': tc.get('classname'), 'name': tc.get('name'), 'time': tc.get('time'),
        'failure': None if failure is None else {'message': failure.get('message'), 'type': failure.get('type'), 'text': failure.text or ''},
        'skipped': None if skipped is None else {'message': skipped.get('message')},
        'children': [c.tag for c in tc],
    }
json.dump({'tag': root.tag, 'attributes': dict(root.attrib), 'cases': [case(tc) for tc in root.findall('testcase')]}, sys.stdout, ensure_ascii=True)
`;

/** Reads a JUnit XML file with python3's ElementTree; throws (with python's message) when it is not XML. */
export async function readJunit(path: string): Promise<JunitSuite> {
  const r = await execa('python3', ['-c', READER, path], { reject: false, stdin: 'ignore' });
  if (r.exitCode !== 0) throw new Error(`${path} is not well-formed XML: ${String(r.stderr).trim().split('\n').at(-1)}`);
  return JSON.parse(String(r.stdout)) as JunitSuite;
}
