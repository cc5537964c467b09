package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/likes"
	"github.com/bookplatform/backend/shared/text"
)

// JSON writes v with the given status.
func JSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(v)
}

// Decode reads the request's JSON object body into dst, strictly, within
// the body size limit:
//   - 413 when the body is over the limit;
//   - 415 when a Content-Type other than JSON (application/json or
//     application/*+json, charset utf-8 if any) is stated; none stated
//     is read as JSON;
//   - 400 for an empty body, unless the route's Doc.OptionalBody lets it
//     be left out (then it decodes as {}); for `null` or anything but an
//     object; for text that is not UTF-8 or escapes half of a surrogate
//     pair (\ud800), which encoding/json would store as U+FFFD; for a key
//     given twice in one object, which encoding/json would resolve
//     silently (last wins); for malformed JSON, a value of the wrong type
//     or trailing data.
//
// Unknown keys are ignored (clients may send fields of newer versions).
func Decode(w http.ResponseWriter, r *http.Request, dst any) error {
	st := state(r)
	data, err := readBody(w, r)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		if st.optionalBody {
			return nil
		}
		return apperr.Validation("Request body is required: a JSON object", nil)
	}
	if err := checkJSONType(r.Header.Get("Content-Type")); err != nil {
		return err
	}
	if err := checkJSON(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	return nil
}

// readBody reads the whole body within the size limit: 413 over it, 408
// when the body does not arrive before the server's read deadline, 400
// when the connection fails otherwise.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	limit := state(r).maxBody
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case err == nil:
		return data, nil
	case errors.As(err, &mbe):
		return nil, apperr.New(apperr.CodeTooLarge, "Request body exceeds %d bytes", limit)
	case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return nil, apperr.New(apperr.CodeRequestTimeout, "The request body did not arrive in time")
	default:
		return nil, apperr.Validation("Could not read request body", nil)
	}
}

// checkJSONType refuses a stated media type that is not JSON.
func checkJSONType(ct string) error {
	if ct == "" {
		return nil
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		if cs, ok := params["charset"]; !ok || strings.EqualFold(cs, "utf-8") {
			return nil
		}
	}
	return apperr.New(apperr.CodeUnsupportedType, "Content-Type %s is not supported: send application/json", text.Quote(ct))
}

// checkJSON checks what encoding/json lets through: the body is one JSON
// object, in UTF-8, with no escaped lone surrogate and no key twice in
// any object. Syntax errors are left for the decoder to name.
func checkJSON(data []byte) error {
	if !utf8.Valid(data) {
		return apperr.Validation("Request body is not valid UTF-8", nil)
	}
	if loneSurrogate(data) {
		return apperr.Validation("Request body escapes half of a UTF-16 surrogate pair: not a character", nil)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// open holds the keys seen in each open object, nil for an array;
	// wantKey whether the innermost object's next token is a key (or its
	// end).
	var open []map[string]bool
	var wantKey []bool
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return decodeError(err)
		}
		if len(open) == 0 && tok != json.Delim('{') {
			return apperr.Validation("Request body must be a JSON object, not "+jsonValueKind(tok), nil)
		}
		top := len(open) - 1
		inObject := top >= 0 && open[top] != nil
		switch {
		case tok == json.Delim('}') || tok == json.Delim(']'):
			open, wantKey = open[:top], wantKey[:top]
			if len(open) == 0 && dec.More() {
				return apperr.Validation("Request body must be a single JSON object", nil)
			}
			continue
		case inObject && wantKey[top]:
			k := tok.(string)
			fk := foldKey(k)
			if open[top][fk] {
				return apperr.Validation("Key "+text.Quote(k)+" appears twice in one object", nil)
			}
			open[top][fk], wantKey[top] = true, false
			continue
		case inObject:
			wantKey[top] = true // this value ends the pair
		}
		switch tok {
		case json.Delim('{'):
			open, wantKey = append(open, map[string]bool{}), append(wantKey, true)
		case json.Delim('['):
			open, wantKey = append(open, nil), append(wantKey, false)
		}
	}
}

// foldKey is a key as encoding/json matches it to a struct field: without
// regard to case, with the two folds it adds (the long s and the Kelvin
// sign). Two keys of one object that fold alike are the same key twice:
// {"storeId": a, "StoreId": b} would otherwise reach the handler as b
// after a role check read a.
func foldKey(k string) string {
	return keyFolds.Replace(strings.ToLower(k))
}

// keyFolds are the folds encoding/json adds to lower case, built once:
// foldKey runs on every key of every request body.
var keyFolds = strings.NewReplacer("\u017f", "s", "\u212a", "k")

// jsonValueKind names a top-level token that is not an object.
func jsonValueKind(tok json.Token) string {
	switch tok.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	}
	return "an array"
}

// loneSurrogate reports whether data escapes a UTF-16 surrogate that is
// not half of a pair (\ud800 alone, or \udc00 first). A backslash
// outside a string is a syntax error the decoder reports anyway.
func loneSurrogate(data []byte) bool {
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' {
			continue
		}
		i++ // the escaped character
		if i >= len(data) || data[i] != 'u' {
			continue
		}
		r, ok := hex4(data[i+1:])
		if !ok {
			continue // the decoder reports it
		}
		i += 4
		switch {
		case r >= 0xdc00 && r <= 0xdfff:
			return true
		case r >= 0xd800 && r <= 0xdbff:
			if i+2 >= len(data) || data[i+1] != '\\' || data[i+2] != 'u' {
				return true
			}
			lo, ok := hex4(data[i+3:])
			if !ok || lo < 0xdc00 || lo > 0xdfff {
				return true
			}
			i += 6
		}
	}
	return false
}

// hex4 reads four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func decodeError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return apperr.Validation(fmt.Sprintf("Request body must be a JSON object, not %s", text.Quote(typeErr.Value)), nil)
		}
		return apperr.Validation(fmt.Sprintf("Field %s must be %s, not %s", text.Quote(field), jsonKind(typeErr.Type.Kind().String()), text.Quote(typeErr.Value)),
			map[string]string{field: "must be " + jsonKind(typeErr.Type.Kind().String())})
	case errors.As(err, &syntaxErr):
		return apperr.Validation(fmt.Sprintf("Malformed JSON body at byte %d: %s", syntaxErr.Offset, syntaxErr.Error()), nil)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return apperr.Validation("Malformed JSON body: it ends too soon", nil)
	default:
		return apperr.Validation("Malformed JSON body", nil)
	}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		return "a number"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	default:
		return "of another type"
	}
}

// Success is the { success, message } body of the spec.
type Success struct {
	Success bool   `json:"success"`
	Message string `json:"message,omitempty"`
}

// Liked is the body of every like and unlike (spec: { success,
// likeCount, isLiked }).
type Liked struct {
	Success   bool `json:"success"`
	LikeCount int  `json:"likeCount"`
	IsLiked   bool `json:"isLiked"`
}

// NewLiked is the body of a like or unlike's result.
func NewLiked(r likes.Result) Liked {
	return Liked{Success: true, LikeCount: r.LikeCount, IsLiked: r.IsLiked}
}
