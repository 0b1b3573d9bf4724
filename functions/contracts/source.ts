/**
 * Default EventBridge sources. Both are deployment settings (config `inboundSource` /
 * `outboundSource`), so contract modules never bake them into parsing: the decoder and the
 * publisher take the configured value as an argument.
 */
export const DEFAULT_INBOUND_SOURCE = 'partner.app';
export const DEFAULT_OUTBOUND_SOURCE = 'workforce.connector';
