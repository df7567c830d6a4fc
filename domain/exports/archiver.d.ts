/**
 * Types for archiver 8 (ESM, ships none; @types/archiver describes v6). Only what
 * domain/exports/zip.ts uses.
 */
declare module 'archiver' {
  import { Transform } from 'node:stream';

  export interface ZipArchiveOptions {
    zlib?: { level?: number };
    store?: boolean;
    forceZip64?: boolean;
  }

  export interface EntryData {
    name: string;
    date?: Date;
  }

  export class ZipArchive extends Transform {
    constructor(options?: ZipArchiveOptions);
    append(source: string | Buffer | NodeJS.ReadableStream, data: EntryData): this;
    file(filepath: string, data: EntryData): this;
    finalize(): Promise<void>;
    abort(): this;
    pointer(): number;
  }
}
