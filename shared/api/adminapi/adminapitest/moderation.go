package adminapitest

import "github.com/bookplatform/backend/shared/api/apitest"

// moderationFacts: this area's steps and actions (to be built: issue 22).
func moderationFacts() apitest.Facts { return apitest.Facts{} }
