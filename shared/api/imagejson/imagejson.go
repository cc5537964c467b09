// Package imagejson holds the wire shapes of the presigned image uploads
// every image route offers beside its multipart upload (avatar, logo,
// banner): the upload slot a client PUTs the file to, and the request that
// attaches it.
package imagejson

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/images"
)

// Upload is a presigned upload slot: PUT the file's bytes (nothing else,
// no form) to uploadUrl before expiresAt, then send uploadKey to the
// image's attach route, which checks the file as the multipart route does.
type Upload struct {
	UploadURL    string   `json:"uploadUrl"`
	Method       string   `json:"method"`
	UploadKey    string   `json:"uploadKey"`
	ExpiresAt    string   `json:"expiresAt"`
	MaxBytes     int      `json:"maxBytes"`
	ContentTypes []string `json:"contentTypes"`
}

// NewUpload is the slot of u for an image of kind k.
func NewUpload(u images.Upload, k images.Kind) Upload {
	return Upload{
		UploadURL: u.URL, Method: http.MethodPut, UploadKey: u.Key, ExpiresAt: userjson.Time(u.ExpiresAt),
		MaxBytes: images.MaxBytes, ContentTypes: k.ContentTypes(),
	}
}

// Attach is the body of an attach route: the uploadKey of a slot whose
// file was uploaded.
type Attach struct {
	UploadKey string `json:"uploadKey"`
}
