import { createHash } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type * as z from '../zod.js';
import { readArchiveHeader, type ArchiveHeader } from '../restore/archive/archive.js';
import { artifactMeta, SANDBOX_FILES, type settingsFile, type worldFile } from './data-files.js';
import type { ArtifactCatalog, ArtifactFile } from './data-model.js';
import { fail, type ReadJson } from './data-reader.js';

function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/** The archive every completed backup of this job's database (or this job) serves. */
export function artifactFor(catalog: ArtifactCatalog, job: { id: string; protectedDatabaseId: string }): ArtifactFile {
  const name = catalog.byBackupJob.get(job.id) ?? catalog.byDatabase.get(job.protectedDatabaseId) ?? catalog.defaultName;
  return catalog.files.get(name)!;
}

/**
 * Reads settings.json's artifacts and world.json's assignments, and checks every archive against its
 * metadata: the sandbox serves real pg_dump archives whose size, digest and versions are what it says.
 */
export async function loadArtifactCatalog(
  dir: string,
  settings: z.infer<typeof settingsFile>,
  world: z.infer<typeof worldFile>,
  readJson: ReadJson,
  known: { hasDatabase: (id: string) => boolean; hasArtifact: (backupJobId: string) => boolean | undefined },
): Promise<ArtifactCatalog> {
  const spec = settings.artifacts ?? {
    default: 'default',
    urlTtlSeconds: settings.artifact!.urlTtlSeconds,
    files: { default: { file: settings.artifact!.file, meta: settings.artifact!.meta } },
  };
  const names = Object.keys(spec.files);
  const nameCheck = (name: string, where: string) => {
    if (!Object.hasOwn(spec.files, name)) fail(where, `no artifact named "${name}" in ${SANDBOX_FILES.settings} (${names.join(', ') || 'none'})`);
  };
  nameCheck(spec.default, `${SANDBOX_FILES.settings}: artifacts.default`);

  const worldPath = SANDBOX_FILES.world;
  const { databases, backupJobs } = world.artifactFiles;
  for (const [dbId, name] of Object.entries(databases)) {
    if (!known.hasDatabase(dbId)) fail(worldPath, `artifactFiles.databases: unknown database ${dbId}`);
    nameCheck(name, `${worldPath}: artifactFiles.databases.${dbId}`);
  }
  for (const [jobId, name] of Object.entries(backupJobs)) {
    const hasArtifact = known.hasArtifact(jobId);
    if (hasArtifact === undefined) fail(worldPath, `artifactFiles.backupJobs: unknown backup job ${jobId}`);
    if (!hasArtifact) fail(worldPath, `artifactFiles.backupJobs: ${jobId} has no artifact (only a completed backup serves one)`);
    nameCheck(name, `${worldPath}: artifactFiles.backupJobs.${jobId}`);
  }

  const files = new Map<string, ArtifactFile>();
  for (const name of names) files.set(name, await checkArtifact(dir, name, spec.files[name]!, readJson));
  return {
    files,
    defaultName: spec.default,
    byDatabase: new Map(Object.entries(databases)),
    byBackupJob: new Map(Object.entries(backupJobs)),
    urlTtlSeconds: spec.urlTtlSeconds,
  };
}

/** The archive is real: its size, digest and header versions come from the file and must match its metadata. */
async function checkArtifact(dir: string, name: string, entry: { file: string; meta: string }, readJson: ReadJson): Promise<ArtifactFile> {
  const artifactPath = path.join(dir, entry.file);
  const metaPath = path.join(dir, entry.meta);
  const meta = readJson(entry.meta, artifactMeta);
  if (!existsSync(artifactPath) || !statSync(artifactPath).isFile()) fail(artifactPath, 'file not found');
  const sizeBytes = statSync(artifactPath).size;
  const sha256 = await sha256File(artifactPath);
  if (sizeBytes !== meta.sizeBytes || sha256 !== meta.sha256) {
    fail(metaPath, `sizeBytes/sha256 (${meta.sizeBytes}, ${meta.sha256}) do not match ${entry.file} (${sizeBytes}, ${sha256})`);
  }
  let header: ArchiveHeader;
  try {
    header = await readArchiveHeader(artifactPath);
  } catch {
    fail(artifactPath, 'not a pg_dump archive (no PGDMP header)');
  }
  const pgDumpVersion = header.pgDumpVersion?.split(' ')[0];
  if (header.version !== meta.archiveFormatVersion || pgDumpVersion !== meta.pgDumpVersion) {
    fail(
      metaPath,
      `pgDumpVersion/archiveFormatVersion (${meta.pgDumpVersion}, ${meta.archiveFormatVersion}) do not match the header of ${entry.file} (${pgDumpVersion ?? 'none'}, ${header.version ?? 'none'})`,
    );
  }
  return { name, path: artifactPath, sizeBytes, sha256, pgDumpVersion: meta.pgDumpVersion, archiveFormatVersion: meta.archiveFormatVersion };
}
