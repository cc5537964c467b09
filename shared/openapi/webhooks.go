package openapi

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/events"
	"github.com/getkin/kin-openapi/openapi3"
)

// markEvents marks the data types of every declared event as response
// types: the service writes them, so their schemas are closed as an
// answer's are.
func markEvents(s *schemas, groups []api.Group) {
	for _, g := range groups {
		for _, d := range g.Emits {
			s.markResponse(reflect.TypeOf(d.Data))
		}
	}
}

// webhooks documents every event the groups emit (api.Group.Emits) under
// OpenAPI 3.1's webhooks, keyed by event type: what a receiver is sent,
// the envelope (events.Event) with the type and version fixed and the
// event's data as its own schema.
func webhooks(s *schemas, groups []api.Group) (map[string]*openapi3.PathItem, error) {
	out := map[string]*openapi3.PathItem{}
	first := map[string]events.Declaration{}
	for _, g := range groups {
		for _, d := range g.Emits {
			key := string(d.Type)
			// Several groups may emit one event (every change of stock
			// emits inventory.updated): it is documented once, tagged
			// with each, and must be the same declaration wherever it
			// is emitted.
			if prev, dup := first[key]; dup {
				if prev.Version != d.Version || reflect.TypeOf(prev.Data) != reflect.TypeOf(d.Data) {
					return nil, fmt.Errorf("event %s is declared twice, differently", d.Type)
				}
				out[key].Post.Tags = append(out[key].Post.Tags, g.Name)
				continue
			}
			first[key] = d
			op, err := webhook(s, g.Name, d)
			if err != nil {
				return nil, fmt.Errorf("event %s: %w", d.Type, err)
			}
			out[key] = &openapi3.PathItem{Post: op}
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// webhook documents one event.
func webhook(s *schemas, group string, d events.Declaration) (*openapi3.Operation, error) {
	data, err := s.ref(reflect.TypeOf(d.Data))
	if err != nil {
		return nil, err
	}
	str := func(format, about string) *openapi3.SchemaRef {
		return inline(&openapi3.Schema{Type: types(openapi3.TypeString), Format: format, Description: about})
	}
	envelope := &openapi3.Schema{
		Type:                 types(openapi3.TypeObject),
		Required:             []string{"id", "type", "version", "time", "data"},
		AdditionalProperties: openapi3.AdditionalProperties{Has: new(false)},
		Properties: openapi3.Schemas{
			"id":      str("uuid", "The event's id, the same in every delivery of it: deduplicate by it"),
			"type":    inline(&openapi3.Schema{Type: types(openapi3.TypeString), Const: string(d.Type)}),
			"version": inline(&openapi3.Schema{Type: types(openapi3.TypeInteger), Const: d.Version, Description: "The version of data's shape: a new field is not a new version"}),
			"time":    str("date-time", "When the change happened"),
			"data":    data,
		},
	}
	op := &openapi3.Operation{
		OperationID: eventOperationID(d.Type),
		Summary:     d.Summary,
		Description: fmt.Sprintf("Event `%s`, version %d: recorded in the transaction of the change it reports and delivered at least once.", d.Type, d.Version),
		Tags:        []string{group},
		// Said explicitly, as on every operation: the receiver's own
		// security is not this API's.
		Security:    &openapi3.SecurityRequirements{},
		RequestBody: &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().WithRequired(true).WithJSONSchema(envelope)},
		Responses:   openapi3.NewResponses(openapi3.WithStatus(200, &openapi3.ResponseRef{Value: openapi3.NewResponse().WithDescription("The receiver took the event")})),
	}
	return op, nil
}

// eventOperationID is "event" and the type's words: user.followed is
// eventUserFollowed.
func eventOperationID(t events.Type) string {
	id := "event"
	for _, w := range strings.FieldsFunc(string(t), func(r rune) bool { return r == '.' || r == '_' || r == '-' }) {
		id += exported(w)
	}
	return id
}
