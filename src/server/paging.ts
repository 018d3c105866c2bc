// page/limit → offset/limit, and the contract's list shape {items, page, limit, total, totalPages}.
import type { Page } from '../contract/types.js';
import type { PageArgs } from '../db/store.js';

export const pageArgs = (q: { page: number; limit: number }): PageArgs => ({
  offset: (q.page - 1) * q.limit,
  limit: q.limit,
});

export const pageOf = <T>(items: T[], q: { page: number; limit: number }, total: number): Page<T> => ({
  items,
  page: q.page,
  limit: q.limit,
  total,
  totalPages: Math.ceil(total / q.limit),
});
