package openapi

import (
	"encoding"
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/getkin/kin-openapi/openapi3"
)

// schemas builds JSON Schemas (2020-12, as OpenAPI 3.1 has them) of Go
// types by reflection, following encoding/json: every struct becomes a
// named component, referenced wherever it appears.
//
// A body is read in one of two directions, and the rules differ where
// encoding/json differs between them:
//   - a type reachable from a response body is closed
//     (additionalProperties: false), so that a contract test catches a
//     misspelt or undocumented field, and a pointer field is nullable only
//     without omitempty (with it, nil is left out, never written as null);
//   - a type read only from request bodies is open (the decoder ignores
//     unknown fields), and every pointer field is nullable (null decodes
//     to nil).
type schemas struct {
	components openapi3.Schemas
	names      map[reflect.Type]string // struct type → component name
	owners     map[string]reflect.Type // component name → struct type, to catch two types with one name
	response   map[reflect.Type]bool   // struct types reachable from a response body
	used       map[string]bool         // the constraint table entries applied (constraints.go)
}

func newSchemas() *schemas {
	return &schemas{
		components: openapi3.Schemas{},
		names:      map[reflect.Type]string{},
		owners:     map[string]reflect.Type{},
		response:   map[reflect.Type]bool{},
		used:       map[string]bool{},
	}
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	timeType       = reflect.TypeFor[time.Time]()
	jsonMarshaler  = reflect.TypeFor[json.Marshaler]()
	textMarshaler  = reflect.TypeFor[encoding.TextMarshaler]()
	httpapiPath    = reflect.TypeFor[httpapi.Route]().PkgPath()
)

// implements reports whether t or *t has the interface's methods: either
// way encoding/json may use them instead of t's fields.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

// markResponse records the struct types reachable from t as response
// types. It must see every response body before any schema is built.
func (s *schemas) markResponse(t reflect.Type) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t == timeType || s.response[t] {
		return
	}
	s.response[t] = true
	for f := range t.Fields() {
		if f.IsExported() || f.Anonymous {
			s.markResponse(f.Type)
		}
	}
}

// ref returns the schema of a Go type: a $ref for a struct, inline for
// anything else.
func (s *schemas) ref(t reflect.Type) (*openapi3.SchemaRef, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == rawMessageType:
		// Any JSON value; a field says what it holds with an openapi tag.
		return openapi3.NewSchemaRef("", &openapi3.Schema{}), nil
	case t == timeType:
		return inline(&openapi3.Schema{Type: types(openapi3.TypeString), Format: "date-time"}), nil
	case implements(t, jsonMarshaler):
		// Its own encoding: reflection would describe its Go fields,
		// not what it writes.
		return nil, fmt.Errorf("%s writes its own JSON: tag the field with openapi:\"<type>\"", t)
	case implements(t, textMarshaler):
		return inline(&openapi3.Schema{Type: types(openapi3.TypeString)}), nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return inline(&openapi3.Schema{Type: types(openapi3.TypeBoolean)}), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return inline(&openapi3.Schema{Type: types(openapi3.TypeInteger)}), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return inline(&openapi3.Schema{Type: types(openapi3.TypeInteger), Min: new(0.0)}), nil
	case reflect.Float32:
		return inline(&openapi3.Schema{Type: types(openapi3.TypeNumber), Format: "float"}), nil
	case reflect.Float64:
		// Said, so that a generator does not pick float32 (oapi-codegen's
		// default for a bare number).
		return inline(&openapi3.Schema{Type: types(openapi3.TypeNumber), Format: "double"}), nil
	case reflect.String:
		return inline(&openapi3.Schema{Type: types(openapi3.TypeString)}), nil
	case reflect.Interface:
		return inline(&openapi3.Schema{}), nil
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			// encoding/json writes []byte as base64 ([N]byte as numbers).
			return inline(&openapi3.Schema{Type: types(openapi3.TypeString), ContentEncoding: "base64"}), nil
		}
		// A nil slice is encoded as null, but every handler makes empty
		// lists: the reference documents the list it promises.
		items, err := s.ref(t.Elem())
		if err != nil {
			return nil, err
		}
		return inline(&openapi3.Schema{Type: types(openapi3.TypeArray), Items: items}), nil
	case reflect.Map:
		if k := t.Key().Kind(); k != reflect.String && !isInt(k) {
			return nil, fmt.Errorf("%s: map keys must be strings or integers in JSON", t)
		}
		obj := &openapi3.Schema{Type: types(openapi3.TypeObject)}
		if t.Elem().Kind() != reflect.Interface {
			values, err := s.ref(t.Elem())
			if err != nil {
				return nil, err
			}
			obj.AdditionalProperties = openapi3.AdditionalProperties{Schema: values}
		}
		return inline(obj), nil
	case reflect.Struct:
		return s.component(t)
	}
	return nil, fmt.Errorf("%s: no JSON form for kind %s", t, t.Kind())
}

// component returns a $ref to t's component, building it the first time.
// An anonymous struct has no name to give a component: it is inline.
func (s *schemas) component(t reflect.Type) (*openapi3.SchemaRef, error) {
	if t.Name() == "" {
		obj := &openapi3.Schema{}
		if err := s.object(t, obj); err != nil {
			return nil, err
		}
		return inline(obj), nil
	}
	if name, ok := s.names[t]; ok {
		return openapi3.NewSchemaRef(componentRef(name), s.components[name].Value), nil
	}
	name := componentName(t)
	if other, ok := s.owners[name]; ok {
		return nil, fmt.Errorf("%s and %s would both be component %q: rename one", other, t, name)
	}
	// Registered before its fields are built, so that a type that
	// contains itself refers to its own component.
	obj := &openapi3.Schema{}
	s.names[t], s.owners[name] = name, t
	s.components[name] = inline(obj)
	if err := s.object(t, obj); err != nil {
		return nil, err
	}
	return openapi3.NewSchemaRef(componentRef(name), obj), nil
}

// object fills obj with the schema of struct type t.
func (s *schemas) object(t reflect.Type, obj *openapi3.Schema) error {
	fields, err := jsonFields(t)
	if err != nil {
		return err
	}
	response := s.response[t]
	obj.Type = types(openapi3.TypeObject)
	obj.Properties = make(openapi3.Schemas, len(fields))
	var aliases []jsonField
	for _, f := range fields {
		if f.alias != "" {
			aliases = append(aliases, f)
			continue
		}
		prop, err := s.field(f, response)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", t, f.goName, err)
		}
		if f.doc != "" {
			// A field whose meaning its name and type do not carry
			// (doc:"..."): described in place, on a copy of its schema.
			if prop.Ref != "" {
				return fmt.Errorf("%s.%s: a doc tag on a field of a component type", t, f.goName)
			}
			described := *prop.Value
			described.Description = f.doc
			prop = inline(&described)
		}
		obj.Properties[f.name] = prop
		if !f.optional {
			obj.Required = append(obj.Required, f.name)
		}
	}
	if response {
		obj.AdditionalProperties = openapi3.AdditionalProperties{Has: new(false)}
	}
	s.constrain(s.names[t], obj)
	return s.aliases(t, obj, aliases, response)
}

// aliases documents the fields tagged alias:"<name>": the spec's second
// spelling (Form B) of the property <name>. A client generator must see
// one field per concept (two properties refreshToken and refresh_token
// are one Go field name twice), so an alias is not a property: the
// property it stands for says it is accepted (or written) too, the
// object lists its aliases in x-aliases, and a closed (response) object
// admits them by name in patternProperties, so that the answers the
// server writes, which carry both spellings, still validate.
func (s *schemas) aliases(t reflect.Type, obj *openapi3.Schema, aliases []jsonField, response bool) error {
	if len(aliases) == 0 {
		return nil
	}
	ext := map[string]any{}
	var names []string
	for _, f := range aliases {
		target := obj.Properties[f.alias]
		if target == nil || target.Ref != "" {
			return fmt.Errorf("%s.%s: alias of %q, which is no inline property", t, f.goName, f.alias)
		}
		if f.typ != reflect.TypeOf("") && f.typ != reflect.TypeOf(new(string)) {
			return fmt.Errorf("%s.%s: an alias must be a string", t, f.goName)
		}
		verb := "is accepted in its place"
		if response {
			verb = "carries the same value"
		}
		target.Value.Description = strings.TrimSpace(target.Value.Description + fmt.Sprintf(" Form B: `%s` %s.", f.name, verb))
		ext[f.name] = f.alias
		names = append(names, regexp.QuoteMeta(f.name))
	}
	if obj.Extensions == nil {
		obj.Extensions = map[string]any{}
	}
	obj.Extensions["x-aliases"] = ext
	if response {
		slices.Sort(names)
		obj.PatternProperties = openapi3.Schemas{"^(" + strings.Join(names, "|") + ")$": inline(&openapi3.Schema{Type: types(openapi3.TypeString)})}
	}
	return nil
}

// field is the schema of one property.
func (s *schemas) field(f jsonField, response bool) (*openapi3.SchemaRef, error) {
	if f.openapi != "" {
		// The field's Go type does not say what it holds (a
		// json.RawMessage read raw): the tag lists its JSON types.
		ts := strings.Split(f.openapi, ",")
		for _, t := range ts {
			if !validType(t) {
				return nil, fmt.Errorf("openapi tag %q: %q is not a JSON Schema type", f.openapi, t)
			}
		}
		return inline(&openapi3.Schema{Type: types(ts...)}), nil
	}
	if f.asString {
		// ",string" writes a number or boolean inside a JSON string.
		return inline(&openapi3.Schema{Type: types(openapi3.TypeString)}), nil
	}
	schema, err := s.ref(f.typ)
	if err != nil {
		return nil, err
	}
	nullable := f.typ.Kind() == reflect.Pointer && (!response || !f.optional)
	if !nullable {
		return schema, nil
	}
	if schema.Ref != "" {
		// A $ref cannot be widened in place: siblings of $ref narrow it
		// in OpenAPI 3.1.
		return inline(&openapi3.Schema{OneOf: openapi3.SchemaRefs{schema, inline(&openapi3.Schema{Type: types(openapi3.TypeNull)})}}), nil
	}
	widened := *schema.Value
	widened.Type = types(append(widened.Type.Slice(), openapi3.TypeNull)...)
	return inline(&widened), nil
}

// jsonField is a struct field as encoding/json sees it.
type jsonField struct {
	name     string
	goName   string
	typ      reflect.Type
	optional bool   // omitempty or omitzero: left out when empty
	asString bool   // the ",string" option
	openapi  string // the openapi tag: the field's JSON types
	alias    string // the alias tag: the property this one is a second spelling of
	doc      string // the doc tag: the property's description
	depth    int
}

// jsonFields lists t's JSON properties in field order, with the fields of
// embedded structs inline, as encoding/json writes them: a field of an
// outer struct hides one of the same name further in.
func jsonFields(t reflect.Type) ([]jsonField, error) {
	var out []jsonField
	index := map[string]int{}
	var walk func(t reflect.Type, depth int) error
	walk = func(t reflect.Type, depth int) error {
		for sf := range t.Fields() {
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			ft := sf.Type
			if sf.Anonymous && name == "" {
				et := ft
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					if err := walk(et, depth+1); err != nil {
						return err
					}
					continue
				}
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			f := jsonField{
				name: name, goName: sf.Name, typ: ft, depth: depth,
				optional: hasOpt(opts, "omitempty") || hasOpt(opts, "omitzero"),
				asString: hasOpt(opts, "string") && stringable(ft),
				openapi:  sf.Tag.Get("openapi"),
				alias:    sf.Tag.Get("alias"),
				doc:      sf.Tag.Get("doc"),
			}
			i, dup := index[name]
			switch {
			case !dup:
				index[name] = len(out)
				out = append(out, f)
			case depth < out[i].depth:
				out[i] = f // the shallower field hides the embedded one
			case depth == out[i].depth:
				return fmt.Errorf("%s: two fields named %q at one depth (encoding/json drops both)", t, name)
			}
		}
		return nil
	}
	if err := walk(t, 0); err != nil {
		return nil, err
	}
	return out, nil
}

func hasOpt(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// stringable reports whether encoding/json honours ",string" on t.
func stringable(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Float32, reflect.Float64, reflect.String:
		return true
	}
	return isInt(t.Kind()) || (t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64)
}

func isInt(k reflect.Kind) bool { return k >= reflect.Int && k <= reflect.Int64 }

func validType(t string) bool {
	switch t {
	case openapi3.TypeArray, openapi3.TypeBoolean, openapi3.TypeInteger, openapi3.TypeNumber,
		openapi3.TypeObject, openapi3.TypeString, openapi3.TypeNull:
		return true
	}
	return false
}

// componentName names a struct type's component: its Go name, exported,
// prefixed with its package's subject when the name does not say it
// (userjson.Brief is UserBrief, bookjson.Brief BookBrief; linejson.Line
// stays Line). httpapi's shared shapes keep their names. A generic type
// is named after its type arguments: CursorBody[linejson.Line] is
// LineList.
func componentName(t reflect.Type) string { return typeName(t.PkgPath(), t.Name()) }

// typeName is componentName over the strings reflect gives: the package
// path and the type's name, with type arguments written out in full for
// an instance of a generic type.
func typeName(pkgPath, name string) string {
	base, args, generic := strings.Cut(name, "[")
	if !generic {
		return qualify(pkgPath, name)
	}
	var argNames []string
	for _, a := range splitArgs(strings.TrimSuffix(args, "]")) {
		argNames = append(argNames, argName(a))
	}
	if pkgPath == httpapiPath && base == "CursorBody" {
		return strings.Join(argNames, "") + "List"
	}
	return qualify(pkgPath, base) + "Of" + strings.Join(argNames, "")
}

// argName names one type argument as written by reflect
// ("github.com/x/linejson.Line", "*pkg.T", "[]pkg.T", "string").
func argName(a string) string {
	a = strings.TrimSpace(a)
	switch {
	case strings.HasPrefix(a, "*"):
		return argName(a[1:])
	case strings.HasPrefix(a, "[]"):
		return argName(a[2:]) + "Array"
	case strings.HasPrefix(a, "map["):
		return "Map"
	}
	// The package path ends at the last dot before any type arguments.
	head, _, _ := strings.Cut(a, "[")
	if i := strings.LastIndex(head, "."); i >= 0 {
		return typeName(a[:i], a[i+1:])
	}
	return exported(a)
}

// splitArgs splits a type argument list at its top-level commas.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// qualify prefixes name with its package's subject: the package name
// without a trailing "json" or "api" and a plural "s" (usersapi and
// userjson are both "user").
func qualify(pkgPath, name string) string {
	name = exported(name)
	if pkgPath == httpapiPath || pkgPath == "" {
		return name
	}
	subject := path.Base(pkgPath)
	subject = strings.TrimSuffix(strings.TrimSuffix(subject, "json"), "api")
	subject = strings.TrimSuffix(subject, "s")
	if subject == "" || strings.Contains(strings.ToLower(name), subject) {
		return name
	}
	return exported(subject) + name
}

func exported(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

func componentRef(name string) string { return "#/components/schemas/" + name }

func inline(s *openapi3.Schema) *openapi3.SchemaRef { return openapi3.NewSchemaRef("", s) }

func types(ts ...string) *openapi3.Types {
	t := openapi3.Types(ts)
	return &t
}
