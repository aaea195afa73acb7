export interface PageParams {
  limit?: number;
  cursor?: string;
}

/** One path segment, percent-encoded. */
export const seg = encodeURIComponent;
