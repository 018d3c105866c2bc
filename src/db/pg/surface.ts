// PostgreSQL side of the sign-up surface's storage: server secrets, the captcha replay table and bulk
// import. Several instances share these tables; unique keys settle every race.
import { lt, sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { EntryRow, ImportedBatch } from '../store.js';
import { Batcher } from '../batcher.js';
import { bulkInsert } from './bulk.js';
import { closeOrdinalGaps, reserveOrdinalsIn } from './lifecycle.js';
import * as s from './schema.js';
import { pgUnavailable } from './unavailable.js';

// 14 columns a row: 1000 rows stay far below PostgreSQL's 65,535 bind parameters.
const IMPORT_CHUNK = 1000;

export class PgSurface {
  constructor(private readonly db: NodePgDatabase<typeof s>) {}

  async serverSecret(name: string, make: () => string): Promise<string> {
    await this.db.insert(s.serverSecrets).values({ name, value: make(), createdAt: Date.now() }).onConflictDoNothing();
    const rows = await this.db.select({ value: s.serverSecrets.value }).from(s.serverSecrets).where(sql`${s.serverSecrets.name} = ${name}`);
    return rows[0]!.value;
  }

  private lastPurge = 0;

  async useCaptchaSolution(signature: string, expiresAt: number, now: number): Promise<boolean> {
    // Expired solutions are purged at most once a minute per instance, not on every join.
    if (now - this.lastPurge > 60_000) {
      this.lastPurge = now;
      await this.db.delete(s.captchaSolutions).where(lt(s.captchaSolutions.expiresAt, now));
    }
    return this.solutions.add({ signature, expiresAt });
  }

  /**
   * The solutions used during one event-loop turn go in as one INSERT (one commit, not one per join);
   * the unique signature still settles every race, across instances too. Within the turn the first
   * use of a signature wins and any later one in the same batch is refused, as it would be one by one.
   */
  private readonly solutions = new Batcher<{ signature: string; expiresAt: number }, boolean>(
    async (batch) => {
      const first = new Map<string, number>(); // signature → index of its first use in the batch
      batch.forEach((x, i) => {
        if (!first.has(x.signature)) first.set(x.signature, i);
      });
      const fresh = [...first.keys()];
      const r = await this.db.execute<{ signature: string }>(
        sql`INSERT INTO captcha_solutions (signature, expires_at)
            SELECT * FROM unnest(${sql.param(fresh)}::text[], ${sql.param(fresh.map((sig) => batch[first.get(sig)!]!.expiresAt))}::bigint[])
            ON CONFLICT (signature) DO NOTHING RETURNING signature`,
      );
      const inserted = new Set(r.rows.map((x) => x.signature));
      return batch.map((x, i) => inserted.has(x.signature) && first.get(x.signature) === i);
    },
    { fatal: pgUnavailable },
  );

  async liveEmailNorms(projectId: string, norms: string[]): Promise<string[]> {
    if (!norms.length) return [];
    const rows = await this.db
      .select({ e: s.entries.emailNorm })
      .from(s.entries)
      .where(
        sql`${s.entries.projectId} = ${projectId} AND ${s.entries.deletedAt} IS NULL AND ${s.entries.emailNorm} = ANY(${sql.param(norms)})`,
      );
    return rows.map((r) => r.e);
  }

  async importEntries(rows: EntryRow[]): Promise<ImportedBatch> {
    if (!rows.length) return { inserted: 0, first: 0 };
    return this.db.transaction(async (tx) => {
      // Ordinals for the batch in the same transaction as its rows (the store gives them, as for joins).
      const first = await reserveOrdinalsIn(tx, rows[0]!.projectId, rows.length);
      let next = first;
      for (const r of rows) {
        r.ordinal = next++;
        r.k = r.ordinal;
      }
      const ids = new Set<string>();
      for (let i = 0; i < rows.length; i += IMPORT_CHUNK) {
        const r = await tx.execute<{ id: string }>(
          bulkInsert(
            s.entries,
            rows.slice(i, i + IMPORT_CHUNK),
            sql`ON CONFLICT (project_id, email_norm) WHERE deleted_at IS NULL DO NOTHING RETURNING id`,
          ),
        );
        for (const x of r.rows) ids.add(x.id);
      }
      if (ids.size < rows.length) {
        // The skipped duplicates had an ordinal each: close the gaps (closeOrdinalGaps).
        const { moved, last } = closeOrdinalGaps(rows, first, ids);
        for (let i = 0; i < moved.length; i += IMPORT_CHUNK) {
          const part = moved.slice(i, i + IMPORT_CHUNK);
          await tx.execute(
            sql`UPDATE entries AS e SET ordinal = v.o, k = v.o
                FROM unnest(${sql.param(part.map((m) => m.id))}::text[], ${sql.param(part.map((m) => m.ordinal))}::bigint[]) AS v(id, o)
                WHERE e.id = v.id`,
          );
        }
        await tx.execute(sql`UPDATE entry_ordinals SET last = ${last} WHERE project_id = ${rows[0]!.projectId}`);
      }
      return { inserted: ids.size, first };
    });
  }
}
