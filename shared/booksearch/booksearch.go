// Package booksearch picks the catalog's search engine from the books
// group's settings (docs/decisions.md, "Search behind one interface"):
// the table's own index (books.IndexSearch, the default) or OpenSearch
// Serverless (shared/booksearch/opensearch).
package booksearch

import (
	"fmt"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/booksearch/opensearch"
	"github.com/bookplatform/backend/shared/config"
)

// The settings, read by the books group (and by a feed that indexes the
// catalog into OpenSearch).
const (
	// EnvEngine is the search engine: dynamodb (default) or opensearch.
	EnvEngine = "SEARCH_ENGINE"
	// EnvOpenSearchEndpoint is the collection's endpoint,
	// https://<id>.<region>.aoss.amazonaws.com (required with opensearch).
	EnvOpenSearchEndpoint = "OPENSEARCH_ENDPOINT"
	// EnvOpenSearchIndex is the index of the catalog in it.
	EnvOpenSearchIndex = "OPENSEARCH_INDEX"
)

// Engines and the default index.
const (
	EngineDynamoDB   = "dynamodb"
	EngineOpenSearch = "opensearch"
	DefaultIndex     = "books"
)

// Settings say which engine searches the catalog.
type Settings struct {
	Engine   string
	Endpoint string // with EngineOpenSearch
	Index    string
}

// validIndexName is what OpenSearch accepts as an index name, kept
// simple: 1 to 255 lower-case letters, digits, '_' and '-', not starting
// with either of those two. A loop, not a regular expression: the
// bounded repetition {0,254} compiles into 254 copies, which cost every
// function linking this package 1.5 ms of its cold start.
func validIndexName(s string) bool {
	if len(s) == 0 || len(s) > 255 {
		return false
	}
	for i, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '_' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// ReadSettings reads the settings through env, recording a bad value in
// it: an engine other than the two, an OpenSearch engine with no
// endpoint, an endpoint that is not an http(s) URL of a host alone.
func ReadSettings(env *config.Env) Settings {
	s := Settings{Engine: env.String(EnvEngine), Endpoint: env.String(EnvOpenSearchEndpoint), Index: env.String(EnvOpenSearchIndex)}
	if s.Index == "" {
		s.Index = DefaultIndex
	}
	switch s.Engine {
	case "", EngineDynamoDB:
		s.Engine = EngineDynamoDB
	case EngineOpenSearch:
		if s.Endpoint == "" {
			env.Fail(fmt.Errorf("%s is required when %s is %s", EnvOpenSearchEndpoint, EnvEngine, EngineOpenSearch))
		}
	default:
		env.Fail(fmt.Errorf("%s must be %s or %s, got %q", EnvEngine, EngineDynamoDB, EngineOpenSearch, s.Engine))
		s.Engine = EngineDynamoDB
	}
	if s.Endpoint != "" {
		u, err := url.Parse(s.Endpoint)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			env.Fail(fmt.Errorf("%s must be a URL such as https://abc123.us-east-1.aoss.amazonaws.com, got %q", EnvOpenSearchEndpoint, s.Endpoint))
		}
	}
	if !validIndexName(s.Index) {
		env.Fail(fmt.Errorf("%s must be an index name of lower-case letters, digits, - and _, got %q", EnvOpenSearchIndex, s.Index))
	}
	return s
}

// New returns the engine s names: the table's own index over st, or
// the OpenSearch index, signed with awsCfg's credentials, whose pages are
// read from st.
func New(s Settings, awsCfg aws.Config, st books.Storer) (books.Searcher, error) {
	if s.Engine != EngineOpenSearch {
		return books.NewIndexSearch(st), nil
	}
	return opensearch.New(opensearch.Config{Endpoint: s.Endpoint, Index: s.Index, AWS: &awsCfg}, st)
}
