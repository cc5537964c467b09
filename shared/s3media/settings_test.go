package s3media

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookplatform/backend/shared/config"
)

// Where the media settings are read, both are required, and the base
// URL loses its trailing slash (keys are joined to it with one).
func TestReadSettings(t *testing.T) {
	env := config.NewEnv(func(string) string { return "" })
	ReadSettings(env)
	assert.ErrorContains(t, env.Err(), EnvBucket)
	assert.ErrorContains(t, env.Err(), EnvBaseURL)

	vars := map[string]string{EnvBucket: "b", EnvBaseURL: "https://cdn.example/"}
	env = config.NewEnv(func(k string) string { return vars[k] })
	s := ReadSettings(env)
	require.NoError(t, env.Err())
	assert.Equal(t, Settings{Bucket: "b", BaseURL: "https://cdn.example"}, s)
}
