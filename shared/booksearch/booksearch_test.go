package booksearch

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/booksearch/opensearch"
	"github.com/bookplatform/backend/shared/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func read(vars map[string]string) (Settings, error) {
	env := config.NewEnv(func(k string) string { return vars[k] })
	s := ReadSettings(env)
	return s, env.Err()
}

// Unset, search stays in the table; opensearch needs its endpoint; every
// bad value names its variable.
func TestReadSettings(t *testing.T) {
	s, err := read(nil)
	require.NoError(t, err)
	assert.Equal(t, Settings{Engine: EngineDynamoDB, Index: DefaultIndex}, s)

	s, err = read(map[string]string{EnvEngine: "opensearch", EnvOpenSearchEndpoint: "https://abc.eu-west-1.aoss.amazonaws.com", EnvOpenSearchIndex: "catalog-v2"})
	require.NoError(t, err)
	assert.Equal(t, Settings{Engine: EngineOpenSearch, Endpoint: "https://abc.eu-west-1.aoss.amazonaws.com", Index: "catalog-v2"}, s)

	_, err = read(map[string]string{EnvEngine: "opensearch"})
	assert.ErrorContains(t, err, EnvOpenSearchEndpoint+" is required")
	_, err = read(map[string]string{EnvEngine: "elastic"})
	assert.ErrorContains(t, err, EnvEngine+" must be")
	_, err = read(map[string]string{EnvEngine: "opensearch", EnvOpenSearchEndpoint: "abc.aoss.amazonaws.com/books"})
	assert.ErrorContains(t, err, EnvOpenSearchEndpoint+" must be a URL")
	for _, bad := range []string{"Books", "_books", "-books", "books!", "a b", strings.Repeat("b", 256)} {
		_, err = read(map[string]string{EnvOpenSearchIndex: bad})
		assert.ErrorContains(t, err, EnvOpenSearchIndex+" must be", bad)
	}
	for _, good := range []string{"b", "books_v2", "catalog-2", strings.Repeat("b", 255)} {
		s, err := read(map[string]string{EnvOpenSearchIndex: good})
		assert.NoError(t, err, good)
		assert.Equal(t, good, s.Index)
	}
}

func TestNew_picksTheEngine(t *testing.T) {
	eng, err := New(Settings{Engine: EngineDynamoDB, Index: DefaultIndex}, aws.Config{}, nil)
	require.NoError(t, err)
	assert.IsType(t, &books.IndexSearch{}, eng)

	eng, err = New(Settings{Engine: EngineOpenSearch, Endpoint: "https://abc.eu-west-1.aoss.amazonaws.com", Index: DefaultIndex}, aws.Config{Region: "eu-west-1"}, nil)
	require.NoError(t, err)
	assert.IsType(t, &opensearch.Engine{}, eng)
}
