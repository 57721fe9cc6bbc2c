// Screenshots a caller asked for, kept in the shared cache (Redis in production, so any API process serves them)
// under an unguessable id for SCREENSHOT_TTL_SECONDS, and shown to the caller who took them alone.
import { randomBytes } from 'node:crypto';
import type { Cache } from '../cache/types.js';
import type { Shot } from '../fetchers/types.js';
import { needCache } from './page-cache.js';

export const SCREENSHOT_TYPES = { png: 'image/png', jpeg: 'image/jpeg' } as const;

interface StoredShot {
  owner: string;
  format: Shot['format'];
  /** The image, base64: every cache backend stores JSON. */
  data: string;
}

/** A stored screenshot's id: 144 random bits, the file extension after it. */
const ID = /^([A-Za-z0-9_-]{24})\.(png|jpeg)$/;

export interface KeptShots {
  /** The picture of the page as read (`screenshot`), or null. */
  page: string | null;
  /** The pictures of `screenshot` actions, in step order. */
  steps: string[];
}

export function createScreenshotStore(deps: { cache: Cache; ttlSeconds: number; baseUrl: string }) {
  const { cache, ttlSeconds } = deps;
  const base = deps.baseUrl.replace(/\/+$/, '');

  async function keepOne(owner: string, shot: Shot): Promise<string> {
    const id = randomBytes(18).toString('base64url');
    const stored: StoredShot = { owner, format: shot.format, data: shot.bytes.toString('base64') };
    await needCache(() => cache.set(`shot:${id}`, stored, ttlSeconds));
    return `${base}/screenshots/${id}.${shot.format}`;
  }

  return {
    /** Stores the shots of one answer for `owner` (who may read them back); their URLs. */
    async keep(owner: string, shots: readonly Shot[]): Promise<KeptShots> {
      const kept: KeptShots = { page: null, steps: [] };
      for (const shot of shots) {
        const url = await keepOne(owner, shot);
        if (shot.step === null) kept.page = url;
        else kept.steps.push(url);
      }
      return kept;
    },

    /** The image named `file` (`<id>.<format>`) if `owner` took it and it has not expired; null otherwise. */
    async read(owner: string, file: string): Promise<{ type: string; bytes: Buffer } | null> {
      const match = ID.exec(file);
      if (!match) return null;
      const hit = await needCache(() => cache.get<StoredShot>(`shot:${match[1]}`));
      if (!hit || hit.value.owner !== owner || hit.value.format !== match[2]) return null;
      return { type: SCREENSHOT_TYPES[hit.value.format], bytes: Buffer.from(hit.value.data, 'base64') };
    },
  };
}

export type ScreenshotStore = ReturnType<typeof createScreenshotStore>;
