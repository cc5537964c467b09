package dynamo

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
)

// A page token read back into a start key (the last step of cursor
// decoding, behind the cursor's encryption) takes any text without a
// panic, and gives a key only for a position inside the list it names:
// every key attribute present and not empty, in the list's partition and
// under its prefix; such a key makes the same token again.
func FuzzStartKey(f *testing.F) {
	lists := []list{bookLines("b1"), lineReplies("l1"), bookReviewsByRating("b1")}
	for _, l := range lists {
		item := dynamo.Item{}
		for _, a := range l.keyAttrs() {
			item[a] = &types.AttributeValueMemberS{Value: "v"}
		}
		item[l.index.PartitionKey] = &types.AttributeValueMemberS{Value: l.pk}
		item[l.index.SortKey] = &types.AttributeValueMemberS{Value: l.prefix + "2026"}
		tok, err := l.token(item)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(0), tok)
	}
	f.Add(uint8(1), `{"l":"|LINE#l1|REPLY#|asc","k":{"PK":"LINE#l1","SK":"REPLY#1"}}`)
	f.Add(uint8(1), `{"l":"|LINE#l1|REPLY#|asc","k":{"PK":"LINE#l2","SK":"REPLY#1"}}`)
	f.Add(uint8(2), `{"l":1}`)
	f.Add(uint8(2), `null`)
	f.Fuzz(func(t *testing.T, which uint8, token string) {
		l := lists[int(which)%len(lists)]
		k, err := l.startKey(token)
		if err != nil || k == nil {
			return
		}
		attrs := l.keyAttrs()
		if len(k) != len(attrs) {
			t.Fatalf("%q: key %v has %d attributes, want %d", token, k, len(k), len(attrs))
		}
		str := func(a string) string {
			v, ok := k[a].(*types.AttributeValueMemberS)
			if !ok || v.Value == "" {
				t.Fatalf("%q: attribute %s is %v", token, a, k[a])
			}
			return v.Value
		}
		for _, a := range attrs {
			str(a)
		}
		if str(l.index.PartitionKey) != l.pk || !strings.HasPrefix(str(l.index.SortKey), l.prefix) {
			t.Fatalf("%q: a key outside the list %s: %v", token, l.name(), k)
		}
		again, err := l.token(dynamo.Item(k))
		if err != nil {
			t.Fatal(err)
		}
		var a, b pageToken
		_ = json.Unmarshal([]byte(token), &a)
		_ = json.Unmarshal([]byte(again), &b)
		if a.List != b.List || len(a.Key) != len(b.Key) {
			t.Fatalf("%q gives the token %q back", token, again)
		}
	})
}
