package adminapitest

import "github.com/bookplatform/backend/shared/api/apitest"

// auditFacts: this area's steps and actions (to be built: issue 22).
func auditFacts() apitest.Facts { return apitest.Facts{} }
