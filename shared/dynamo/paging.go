package dynamo

import (
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/guregu/dynamo/v2"
)

// pagingToken turns a LastEvaluatedKey into an opaque string for the HTTP
// layer to seal into a cursor; "" when there is no next page. Every key
// attribute of the table and its indexes is a string.
func pagingToken(k dynamo.PagingKey) (string, error) {
	if len(k) == 0 {
		return "", nil
	}
	flat := make(map[string]string, len(k))
	for name, v := range k {
		s, ok := v.(*types.AttributeValueMemberS)
		if !ok {
			return "", fmt.Errorf("paging key attribute %s is not a string", name)
		}
		flat[name] = s.Value
	}
	b, err := json.Marshal(flat)
	if err != nil {
		return "", fmt.Errorf("encode paging key: %w", err)
	}
	return string(b), nil
}

// pagingKey is pagingToken's inverse; "" is the first page. The token has
// been authenticated by the HTTP layer, so a malformed one is a bug or a
// key-format change, reported as an invalid cursor all the same.
func pagingKey(token string) (dynamo.PagingKey, error) {
	if token == "" {
		return nil, nil
	}
	var flat map[string]string
	if err := json.Unmarshal([]byte(token), &flat); err != nil || len(flat) == 0 {
		return nil, apperr.Validation("Invalid cursor", map[string]string{"cursor": "is malformed"})
	}
	k := make(dynamo.PagingKey, len(flat))
	for name, v := range flat {
		k[name] = &types.AttributeValueMemberS{Value: v}
	}
	return k, nil
}
