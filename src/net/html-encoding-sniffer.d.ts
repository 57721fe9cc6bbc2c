// Types for html-encoding-sniffer 4, which ships none: the WHATWG sniffing algorithm, returning an encoding name.
declare module 'html-encoding-sniffer' {
  export default function sniffHTMLEncoding(
    bytes: Uint8Array,
    options?: { transportLayerEncodingLabel?: string; defaultEncoding?: string },
  ): string;
}
