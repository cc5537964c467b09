package openapi

// Match returns the path of the document the router would serve path
// with ("" for none).
func (v *Validator) Match(path string) string {
	_, tmpl := v.match(path)
	return tmpl
}
