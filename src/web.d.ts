// The few web-standard globals the portable core uses. Declared here (instead of pulling in the
// DOM or Node libraries) so that tsconfig.portable.json proves the core needs nothing else.
declare class TextEncoder {
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}

declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}

// ES2024's String.prototype.isWellFormed, which Node 20 has; declared alone so the rest of the
// ES2024 library (Object.groupBy and friends, which Node 20 lacks) stays out of reach.
interface String {
  isWellFormed(): boolean;
}
