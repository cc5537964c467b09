package notifydeps

import (
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/mail"
	"github.com/bookplatform/backend/shared/mail/sesmail"
)

// Sender is the functions' mail sender: Amazon SES v2 (shared/mail/sesmail)
// built from d, whose AWS configuration reads AWS_ENDPOINT_URL_SESV2 (the
// local SES stand-in's on the local run and in the tests).
func Sender(d api.Deps) mail.Sender {
	return sesmail.FromConfig(d.AWS, d.Env, d.Logger)
}
