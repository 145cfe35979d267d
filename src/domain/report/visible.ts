/** A command as a terminal or a page shows it whole: control, bidirectional and zero-width characters written as escapes. */
export const visible = (text: string) =>
  text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g, (char) =>
    `\\u{${char.codePointAt(0)!.toString(16)}}`)
