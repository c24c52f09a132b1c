/**
 * Hashes, random tokens and secret comparison: what keys, sessions and the
 * webhook outbox need from node:crypto, in one place.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { randomHex } from "./ids.ts";

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** 256 random bits, URL-safe: session cookies, CSRF and setup tokens. */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Compares two strings in time independent of where they differ. */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Admin passwords need at least this many characters. */
export const minPasswordLength = 10;

export class PasswordTooShortError extends Error {
  constructor() {
    super(`the password needs at least ${minPasswordLength} characters`);
  }
}

/** Passwords are kept only as Bun.password hashes (argon2id). */
export function hashPassword(password: string): Promise<string> {
  if (password.length < minPasswordLength) throw new PasswordTooShortError();
  return Bun.password.hash(password, { algorithm: "argon2id" });
}

/** API keys are 160 random bits, so a fast hash is enough to keep them (docs/api.md section 5). */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

export function generateApiKey(): string {
  return `fh_${randomBytes(20).toString("hex")}`;
}

/** `fhe_<hex>`: a site's edge token (docs/fleet.md); 256 random bits, told from API keys by its prefix. */
export function generateEdgeToken(): string {
  return `fhe_${randomBytes(32).toString("hex")}`;
}

/** `msg_<hex>`: the id every delivery of an event carries (docs/api.md section 6.1, the envelope). */
export function newMessageId(): string {
  return `msg_${randomHex(16)}`;
}
