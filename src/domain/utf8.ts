/** UTF-8 sizes and cuts without Node's Buffer, so the modules that use them also run in the page. */
const encoder = new TextEncoder()
const decoder = new TextDecoder("utf-8", { fatal: false })

/** The text's UTF-8 bytes (a lone surrogate becomes U+FFFD, as Buffer writes it). */
export const utf8Bytes = (text: string): Uint8Array => encoder.encode(text)

/** How many bytes the text takes in UTF-8. */
export const utf8Length = (text: string): number => encoder.encode(text).length

/** Bytes read as UTF-8 (an invalid sequence becomes U+FFFD). */
export const utf8Text = (bytes: Uint8Array): string => decoder.decode(bytes)
