/**
 * First step of `npm test`: vitest's bundler (rolldown) ships its native code as an optional
 * dependency, which `npm ci --omit=optional` (or a failed optional install) leaves out; vitest then
 * cannot start. svc itself needs no native module, so only the test runner's binding is added back,
 * without touching package.json or the lockfile, at the version rolldown asks for.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

try {
  await import('rolldown');
} catch (err) {
  const { platform, arch } = process;
  const glibc = platform === 'linux' && Boolean(process.report?.getReport().header.glibcVersionRuntime);
  const suffix = platform === 'linux' ? (glibc ? '-gnu' : '-musl') : platform === 'win32' ? '-msvc' : '';
  const name = `@rolldown/binding-${platform}-${arch}${suffix}`;
  const version = require('rolldown/package.json').optionalDependencies?.[name];
  if (!version) throw new Error(`vitest cannot start (${err.message}), and rolldown lists no binding ${name} for this platform.`);
  process.stderr.write(
    `npm test: vitest's bundler lacks its native binding (an optional dependency that was not installed); adding ${name}@${version} without saving it.\n`,
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, ['install', '--no-save', '--omit=optional', '--no-audit', '--no-fund', `${name}@${version}`], { stdio: 'inherit' });
  // A fresh process: this one keeps the failed module record.
  execFileSync(process.execPath, ['--input-type=module', '-e', "await import('rolldown')"], { stdio: 'inherit' });
}
