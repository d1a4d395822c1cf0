// SQL of the gateway: users and API keys (schema `gateway`); nothing else in the gateway touches the database.
import { randomUUID } from "node:crypto";
import type { ApiKeyResponse } from "@scribe/contracts";
import type { Db } from "@scribe/kit";

export interface UserRow {
  id: string;
  provider_uid: string;
  email: string;
  email_verified: boolean;
  password_hash: string | null;
}

const USER_COLUMNS = ["id", "provider_uid", "email", "email_verified", "password_hash"] as const;

export async function userById(db: Db, id: string): Promise<UserRow | null> {
  const rows = await db<UserRow[]>`select ${db(USER_COLUMNS)} from users where id = ${id}`;
  return rows[0] ?? null;
}

/** The user an e-mail names when several share it (reference: the first row). */
export async function userByEmail(db: Db, email: string): Promise<UserRow | null> {
  const rows = await db<UserRow[]>`select ${db(USER_COLUMNS)} from users where email = ${email} order by created_at, id limit 1`;
  return rows[0] ?? null;
}

/** The login candidate for an e-mail: exact match, oldest row with a password first (reference: first row). */
export async function loginUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  const rows = await db<UserRow[]>`
    select ${db(USER_COLUMNS)} from users
    where email = ${email} and password_hash is not null
    order by created_at, id limit 1`;
  return rows[0] ?? null;
}

/**
 * The local user for an identity-provider account, created on first sight. E-mail and
 * email_verified follow the latest token, written only when they changed (most requests only read).
 */
export async function upsertProviderUser(
  db: Db,
  claims: { uid: string; email: string; emailVerified: boolean },
  now: Date,
): Promise<UserRow> {
  const [existing] = await db<UserRow[]>`select ${db(USER_COLUMNS)} from users where provider_uid = ${claims.uid}`;
  if (existing && existing.email === claims.email && existing.email_verified === claims.emailVerified) return existing;
  // Insert or update in one statement, so two first requests of a new user at once make one row.
  const [row] = await db<UserRow[]>`
    insert into users (id, provider_uid, email, email_verified, created_at, updated_at)
    values (${randomUUID()}, ${claims.uid}, ${claims.email}, ${claims.emailVerified}, ${now}, ${now})
    on conflict (provider_uid) do update
      set email = excluded.email, email_verified = excluded.email_verified, updated_at = excluded.updated_at
    returning ${db(USER_COLUMNS)}`;
  return row!;
}

/**
 * Password-mode user provisioning (reference provision_admin): the user with that e-mail gets the
 * hash, or a user `local:<email>` is created.
 */
export async function setUserPassword(db: Db, email: string, passwordHash: string, now: Date): Promise<UserRow> {
  const [updated] = await db<UserRow[]>`
    update users set password_hash = ${passwordHash}, updated_at = ${now}
    where id = (select id from users where email = ${email} order by created_at, id limit 1)
    returning ${db(USER_COLUMNS)}`;
  if (updated) return updated;
  const [row] = await db<UserRow[]>`
    insert into users (id, provider_uid, email, email_verified, password_hash, created_at, updated_at)
    values (${randomUUID()}, ${`local:${email}`}, ${email}, false, ${passwordHash}, ${now}, ${now})
    on conflict (provider_uid) do update set password_hash = excluded.password_hash, updated_at = excluded.updated_at
    returning ${db(USER_COLUMNS)}`;
  return row!;
}

interface ApiKeyRow {
  id: string;
  user_id: string;
  name: string | null;
  created_at: Date;
}

const toApiKey = (r: ApiKeyRow): ApiKeyResponse => ({ id: r.id, user_id: r.user_id, name: r.name, created_at: r.created_at.toISOString() });

export async function insertApiKey(
  db: Db,
  key: { id: string; userId: string; keyHash: string; name: string | null; now: Date },
): Promise<ApiKeyResponse> {
  const [row] = await db<ApiKeyRow[]>`
    insert into api_key (id, user_id, key_hash, name, created_at)
    values (${key.id}, ${key.userId}, ${key.keyHash}, ${key.name}, ${key.now})
    returning id, user_id, name, created_at`;
  return toApiKey(row!);
}

/** Newest first; never the hash (nor, of course, the key). */
export async function listApiKeys(db: Db, userId: string): Promise<ApiKeyResponse[]> {
  const rows = await db<ApiKeyRow[]>`
    select id, user_id, name, created_at from api_key where user_id = ${userId} order by created_at desc, id desc`;
  return rows.map(toApiKey);
}

/** True when a key of this user was deleted (another user's key id deletes nothing). */
export async function deleteApiKey(db: Db, userId: string, id: string): Promise<boolean> {
  const rows = await db`delete from api_key where id = ${id} and user_id = ${userId} returning id`;
  return rows.length > 0;
}

/** Read on every request that sends a key, uncached, so a deleted key stops working at once. */
export async function apiKeyOwner(db: Db, keyHash: string): Promise<string | null> {
  const [row] = await db<{ user_id: string }[]>`select user_id from api_key where key_hash = ${keyHash}`;
  return row?.user_id ?? null;
}

/** E-mail addresses of the given user ids (unknown ids are left out). */
export async function emailsOf(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db<{ id: string; email: string }[]>`select id, email from users where id in ${db(ids)}`;
  return new Map(rows.map((r) => [r.id, r.email]));
}

export interface IdempotentAnswer {
  fingerprint: string;
  /** null while the first request is still running. */
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
  created_at: Date;
}

/**
 * Claims `key` for this request: true when it is new, or when its earlier claim expired or was
 * left pending by a request that ended without an answer (a gateway that died) before `staleBefore`.
 */
export async function claimIdempotencyKey(
  db: Db,
  k: { userId: string; key: string; fingerprint: string; claim: string; now: Date; expiresAt: Date; staleBefore: Date },
): Promise<boolean> {
  const rows = await db`
    insert into idempotency_keys (user_id, key, fingerprint, claim, created_at, expires_at)
    values (${k.userId}, ${k.key}, ${k.fingerprint}, ${k.claim}, ${k.now}, ${k.expiresAt})
    on conflict (user_id, key) do update
      set fingerprint = excluded.fingerprint, claim = excluded.claim, status = null, headers = null, body = null,
          created_at = excluded.created_at, expires_at = excluded.expires_at
      where idempotency_keys.expires_at <= ${k.now}
        or (idempotency_keys.status is null and idempotency_keys.created_at < ${k.staleBefore})
    returning 1`;
  return rows.length === 1;
}

export async function idempotentAnswer(db: Db, userId: string, key: string): Promise<IdempotentAnswer | null> {
  const [row] = await db<IdempotentAnswer[]>`
    select fingerprint, status, headers, body, created_at from idempotency_keys where user_id = ${userId} and key = ${key}`;
  return row ?? null;
}

export async function recordIdempotentAnswer(
  db: Db,
  k: { userId: string; key: string; claim: string },
  answer: { status: number; headers: Record<string, string>; body: string },
): Promise<void> {
  await db`update idempotency_keys
    set status = ${answer.status}, headers = ${JSON.stringify(answer.headers)}::text::jsonb, body = ${answer.body}
    where user_id = ${k.userId} and key = ${k.key} and claim = ${k.claim} and status is null`;
}

/** A request that got no answer worth keeping (a 5xx): the key is free for the client's retry. */
export async function releaseIdempotencyKey(db: Db, k: { userId: string; key: string; claim: string }): Promise<void> {
  await db`delete from idempotency_keys where user_id = ${k.userId} and key = ${k.key} and claim = ${k.claim} and status is null`;
}

export async function deleteExpiredIdempotencyKeys(db: Db, now: Date): Promise<number> {
  const rows = await db`delete from idempotency_keys where expires_at <= ${now} returning 1`;
  return rows.length;
}
