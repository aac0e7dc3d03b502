import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function fixturePath(relative: string): string {
  return fileURLToPath(new URL(`../../fixtures/${relative}`, import.meta.url));
}

export function readFixtureJson<T = unknown>(relative: string): T {
  return JSON.parse(readFileSync(fixturePath(relative), 'utf8')) as T;
}
