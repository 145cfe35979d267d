/**
 * An RFC 4180 reader written for the tests, apart from the writer it checks: fields separated by commas,
 * records by CRLF (or LF); a quoted field may hold commas, line breaks and doubled quotes.
 */
export const parseCsv = (text: string): Array<Array<string>> => {
  const records: Array<Array<string>> = []
  let record: Array<string> = []
  let field = ""
  let quoted = false
  let index = 0
  while (index < text.length) {
    const character = text[index]!
    if (quoted) {
      if (character === "\"" && text[index + 1] === "\"") {
        field += "\""
        index += 2
        continue
      }
      if (character === "\"") quoted = false
      else field += character
      index += 1
      continue
    }
    if (character === "\"" && field === "") quoted = true
    else if (character === ",") {
      record.push(field)
      field = ""
    } else if (character === "\r" && text[index + 1] === "\n") {
      index += 1
      record.push(field)
      records.push(record)
      record = []
      field = ""
    } else if (character === "\n") {
      record.push(field)
      records.push(record)
      record = []
      field = ""
    } else if (character === "\"") throw new Error(`A quote inside an unquoted field at ${index}.`)
    else field += character
    index += 1
  }
  if (quoted) throw new Error("An unterminated quoted field.")
  if (field !== "" || record.length > 0) {
    record.push(field)
    records.push(record)
  }
  return records
}
