package record

// DecodeJSON exposes the plain encoding/json path of Decode, which reads
// the type and then the record: the reference the faster paths are checked
// against.
var DecodeJSON = decodeTwice
