package s3media

import (
	"strings"

	"github.com/bookplatform/backend/shared/config"
)

// The media bucket's settings. They are read where media is kept or
// served, through config.Env (ReadSettings): by the groups that store
// images (users, stores), so a function of another group neither needs
// nor is told them, and by the local run's media route and stand-ins.
const (
	EnvBucket  = "MEDIA_BUCKET"   // S3 bucket of avatars, logos, banners and uploads (required where read)
	EnvBaseURL = "MEDIA_BASE_URL" // public URL prefix under which media keys are served (required where read)
)

// Settings say where media objects are kept and served from.
type Settings struct {
	Bucket  string
	BaseURL string // without a trailing slash
}

// ReadSettings reads the media settings through env, each required.
func ReadSettings(env *config.Env) Settings {
	return Settings{
		Bucket:  env.Required(EnvBucket),
		BaseURL: strings.TrimRight(env.Required(EnvBaseURL), "/"),
	}
}
