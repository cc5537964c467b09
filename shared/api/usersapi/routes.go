// Package usersapi is the users endpoint group: the caller's own profile,
// password and avatar, the caller's bookstore application, and public
// profiles.
package usersapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/applicationjson"
	"github.com/bookplatform/backend/shared/api/imagejson"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/applications"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/s3media"
	"github.com/bookplatform/backend/shared/users"
)

// handler serves the users group.
type handler struct {
	users        *users.Service
	applications *applications.Service
}

// Group is the users group. It writes profiles with their username
// claims (TransactWriteItems, granted by its parts: PutItem of the new
// claim, DeleteItem of the old one, UpdateItem of the profile), revokes sessions on a password change
// (Query, UpdateItem), forgets the password attempts of a right one
// (DeleteItem), puts a bookstore application with the account's latest
// copy (a TransactWriteItems of two conditional PutItems) and reads that
// copy (GetItem), and stores avatars, in the media bucket through a client
// of its own (only this function of the two sharing the account service
// links S3).
func Group(d api.Deps) api.Group {
	h := &handler{users: d.Users, applications: applications.NewService(dynamo.NewApplications(d.Table), d.Now)}
	media := s3media.ReadSettings(d.Env)
	if d.Users != nil { // nil: a zero Deps, whose table is only listed
		h.users = d.Users.WithImages(s3media.NewImages(d.AWS, media, d.Now))
	}
	return api.Group{
		Name:  "users",
		Table: []string{"dynamodb:DeleteItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem"},
		// PutObject for multipart avatars and for the presigned upload
		// URL (signed with the function's rights); the presigned path
		// reads the upload (GetObject, and ListBucket so that a missing
		// upload is a 404, not a 403: infra grants it on the uploads
		// prefix alone), copies it to its final key (GetObject on the
		// source, PutObject on the target) and removes it (DeleteObject).
		Media: []string{"s3:DeleteObject", "s3:GetObject", "s3:ListBucket", "s3:PutObject"},
		Routes: []httpapi.Route{
			// The answer is the caller's record, read by the router: the
			// handler starts once it is there.
			{Method: http.MethodGet, Path: httpapi.V1("/users/me"), Auth: httpapi.AuthBearer, AfterAdmission: true, Handler: h.getMe,
				Doc: httpapi.Doc{Summary: "The caller's own profile", Response: userjson.Own{}}},
			{Method: http.MethodPut, Path: httpapi.V1("/users/me"), Auth: httpapi.AuthBearer, Handler: h.updateMe,
				Doc: httpapi.Doc{Summary: "Change display name, bio or username", Body: updateMeRequest{}, Response: userjson.Own{}, Errors: []int{400, 409},
					Why: map[int]string{409: "the new username is taken, or the account changed meanwhile (retry)."}}},
			{Method: http.MethodPut, Path: httpapi.V1("/users/me/password"), Auth: httpapi.AuthBearer, Handler: h.changePassword,
				Doc: httpapi.Doc{Summary: "Change the password; other sessions end", Body: passwordRequest{}, Response: httpapi.Success{}, Errors: []int{400, 409},
					Why: map[int]string{409: "the account changed meanwhile (retry)."}}},
			{Method: http.MethodPost, Path: httpapi.V1("/users/me/avatar"), Auth: httpapi.AuthBearer, Handler: h.uploadAvatar,
				Doc: httpapi.Doc{Summary: "Upload an avatar (JPG, PNG or GIF, at most 5 MB)", Multipart: "avatar", Response: avatarResponse{}, Errors: []int{400}}},
			{Method: http.MethodPost, Path: httpapi.V1("/users/me/avatar/upload-url"), Auth: httpapi.AuthBearer, Handler: h.avatarUploadURL,
				Doc: httpapi.Doc{Summary: "A presigned URL to upload an avatar to directly (files too large for a request body)", Response: imagejson.Upload{}}},
			{Method: http.MethodPut, Path: httpapi.V1("/users/me/avatar"), Auth: httpapi.AuthBearer, Handler: h.attachAvatar,
				Doc: httpapi.Doc{Summary: "Make a presigned upload the avatar, after the multipart route's checks", Body: imagejson.Attach{}, Response: avatarResponse{}, Errors: []int{400}}},
			{Method: http.MethodPost, Path: httpapi.V1("/users/me/bookstore-application"), Auth: httpapi.AuthBearer, Idempotent: true, Handler: h.apply,
				Doc: httpapi.Doc{Summary: "Apply for the bookstore tier (which creating a store needs): the store's name, address (as a store's), website and a note for the operators, who approve or decline it; the applicant is emailed the decision",
					Body: applicationjson.Request{}, Response: applicationjson.Application{}, Status: http.StatusCreated, Errors: []int{400, 409},
					Why: map[int]string{
						400: "a bad field (named in details.fields: storeName, address.<field>, website, note), or a guest account (it has no email to answer to).",
						409: "the account's latest application is still pending, or the account has the bookstore tier already.",
					}}},
			{Method: http.MethodGet, Path: httpapi.V1("/users/me/bookstore-application"), Auth: httpapi.AuthBearer, Handler: h.application,
				Doc: httpapi.Doc{Summary: "The caller's latest bookstore application: pending, or approved or declined with the operator's reason",
					Response: applicationjson.Application{}, Errors: []int{404},
					Why: map[int]string{404: "the account never applied."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/users/{userId}"), Auth: httpapi.AuthNone, Handler: h.getByID,
				Doc: httpapi.Doc{Summary: "A public profile by id", Response: userjson.Public{}, Errors: []int{404},
					Why: map[int]string{404: "no account has this id."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/users/username/{username}"), Auth: httpapi.AuthNone, Handler: h.getByUsername,
				Doc: httpapi.Doc{Summary: "A public profile by username, with follower counts", Response: userjson.Public{}, Errors: []int{404},
					Why: map[int]string{404: "no account has this username (compared case-insensitively)."}}},
		},
	}
}
