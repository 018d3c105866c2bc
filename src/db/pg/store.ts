export function openPgStore(_u: string): never { throw new Error("pg pending"); }
