package openapi

import (
	"reflect"
	"strings"
	"testing"

	"github.com/bookplatform/backend/shared/api/linejson"
	"github.com/bookplatform/backend/shared/lines"
)

func TestTypeName(t *testing.T) {
	const mod = "github.com/bookplatform/backend/shared/"
	for _, tc := range []struct{ pkg, name, want string }{
		{mod + "api/userjson", "Brief", "UserBrief"},
		{mod + "api/bookjson", "Brief", "BookBrief"},
		{mod + "api/linejson", "Line", "Line"},
		{mod + "api/reviewsapi", "review", "Review"},
		{mod + "api/reviewsapi", "bookPage", "ReviewBookPage"},
		{mod + "api/usersapi", "avatarResponse", "UserAvatarResponse"},
		{mod + "httpapi", "Success", "Success"},
		{mod + "httpapi", "CursorBody[" + mod + "api/linejson.Line]", "LineList"},
		{mod + "httpapi", "CursorBody[" + mod + "api/reviewsapi.review]", "ReviewList"},
		{mod + "api/clubsapi", "pair[string," + mod + "api/userjson.Brief]", "ClubPairOfStringUserBrief"},
		{mod + "api/clubsapi", "pair[*" + mod + "api/userjson.Brief,[]int]", "ClubPairOfUserBriefIntArray"},
	} {
		if got := typeName(tc.pkg, tc.name); got != tc.want {
			t.Errorf("typeName(%s, %s) = %s, want %s", tc.pkg[strings.LastIndex(tc.pkg, "/")+1:], tc.name, got, tc.want)
		}
	}
}

// Two types that would share a component name are refused, not merged:
// the generator stops and a human picks a name.
func TestSchemas_NameCollisionIsAnError(t *testing.T) {
	s := newSchemas()
	if _, err := s.ref(reflect.TypeFor[linejson.Line]()); err != nil {
		t.Fatal(err)
	}
	_, err := s.ref(reflect.TypeFor[lines.Line]())
	if err == nil || !strings.Contains(err.Error(), `component "Line"`) {
		t.Fatalf("err = %v, want a collision on Line", err)
	}
}
