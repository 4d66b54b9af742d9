package record

// DecodeJSON exposes the encoding/json path of Decode, the reference the
// fast path is checked against.
var DecodeJSON = decodeJSON
