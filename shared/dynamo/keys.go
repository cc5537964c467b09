package dynamo

import (
	"fmt"
	"strings"
	"time"
)

// Key builders: the only place that knows key formats (docs/data-model.md).

func userPK(id string) string { return "USER#" + id }

const profileSK = "PROFILE"

// emailPK claims an email, case-insensitively.
func emailPK(email string) string { return "EMAIL#" + strings.ToLower(email) }

const emailSK = "EMAIL"

// usernamePK claims a username, case-insensitively.
func usernamePK(username string) string { return "USERNAME#" + strings.ToLower(username) }

const usernameSK = "USERNAME"

func sessionSK(id string) string { return "SESSION#" + id }

const sessionPrefix = "SESSION#"

func refreshTokenPK(hash string) string { return "RTOKEN#" + hash }

const refreshTokenSK = "RTOKEN"

// rateLimitPK is one fixed window of one counter.
func rateLimitPK(scope, action string, windowStart time.Time) string {
	return fmt.Sprintf("RL#%s#%s#%d", scope, action, windowStart.Unix())
}

const rateLimitSK = "RL"
