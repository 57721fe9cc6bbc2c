// The media type of a Content-Type value: what the fetchers read a response's body as, and what the HTTP surface
// parses a request's body as. Kept in the kernel so both sides compare types one way.

/** `text/html; charset=utf-8` → `text/html`: the type without its parameters, lower case; '' when there is none. */
export function mimeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}
