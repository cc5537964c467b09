package secretsmgr

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
)

// fakeSecretsManager speaks the subset of Secrets Manager's JSON protocol
// the package calls (GetSecretValue, DescribeSecret, PutSecretValue,
// UpdateSecretVersionStage) for one secret, with the service's version
// staging: a stage is on one version at most, moving AWSCURRENT leaves
// AWSPREVIOUS on the version it left, and a rotation starts with a
// pending version that has no value yet. The real SDK client talks to it
// over HTTP, so requests and answers go through the SDK's serializers.
// There is no local stand-in of Secrets Manager to run instead.
type fakeSecretsManager struct {
	mu       sync.Mutex
	arn      string
	rotation bool
	versions map[string]*fakeVersion
	calls    []string
}

type fakeVersion struct {
	value  *string
	stages []string
}

const fakeARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:jwt-AbCdEf"

func newFakeSecretsManager(t *testing.T, initial string) (*fakeSecretsManager, *secretsmanager.Client) {
	t.Helper()
	f := &fakeSecretsManager{arn: fakeARN, rotation: true, versions: map[string]*fakeVersion{
		"v0": {value: aws.String(initial), stages: []string{stageCurrent}},
	}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	client := secretsmanager.New(secretsmanager.Options{
		Region:       "eu-west-1",
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(srv.URL),
	})
	return f, client
}

// startRotation is what Secrets Manager does before calling the rotation
// function: a new version id staged AWSPENDING, without a value.
func (f *fakeSecretsManager) startRotation(token string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.moveStage(stagePending, token)
}

// current returns the value staged AWSCURRENT.
func (f *fakeSecretsManager) current(t *testing.T) Value {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, v := range f.versions {
		if slices.Contains(v.stages, stageCurrent) {
			val, err := ParseValue(*v.value)
			if err != nil {
				t.Fatal(err)
			}
			return val
		}
	}
	t.Fatal("no current version")
	return Value{}
}

// moveStage puts stage on version id alone (creating the version).
func (f *fakeSecretsManager) moveStage(stage, id string) {
	for _, v := range f.versions {
		v.stages = slices.DeleteFunc(v.stages, func(s string) bool { return s == stage })
	}
	v, ok := f.versions[id]
	if !ok {
		v = &fakeVersion{}
		f.versions[id] = v
	}
	v.stages = append(v.stages, stage)
}

func (f *fakeSecretsManager) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "secretsmanager.")
	var in map[string]any
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		fakeError(w, "InvalidRequestException", err.Error())
		return
	}
	str := func(k string) string { s, _ := in[k].(string); return s }
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, op)
	if id := str("SecretId"); id != f.arn {
		fakeError(w, "ResourceNotFoundException", "no secret "+id)
		return
	}
	switch op {
	case "GetSecretValue":
		id, stage := str("VersionId"), str("VersionStage")
		if id == "" && stage == "" {
			stage = stageCurrent
		}
		for vid, v := range f.versions {
			if (id == "" || vid == id) && (stage == "" || slices.Contains(v.stages, stage)) && v.value != nil {
				fakeJSON(w, map[string]any{"ARN": f.arn, "VersionId": vid, "SecretString": *v.value, "VersionStages": v.stages})
				return
			}
		}
		fakeError(w, "ResourceNotFoundException", "no such version")
	case "DescribeSecret":
		stages := map[string][]string{}
		for vid, v := range f.versions {
			stages[vid] = v.stages
		}
		fakeJSON(w, map[string]any{"ARN": f.arn, "RotationEnabled": f.rotation, "VersionIdsToStages": stages})
	case "PutSecretValue":
		token, value := str("ClientRequestToken"), str("SecretString")
		if v, ok := f.versions[token]; ok && v.value != nil {
			if *v.value != value {
				fakeError(w, "ResourceExistsException", "version exists with another value")
				return
			}
		} else {
			for _, s := range in["VersionStages"].([]any) {
				f.moveStage(s.(string), token)
			}
			f.versions[token].value = aws.String(value)
		}
		fakeJSON(w, map[string]any{"ARN": f.arn, "VersionId": token})
	case "UpdateSecretVersionStage":
		stage, to, from := str("VersionStage"), str("MoveToVersionId"), str("RemoveFromVersionId")
		if v, ok := f.versions[from]; from != "" && (!ok || !slices.Contains(v.stages, stage)) {
			fakeError(w, "InvalidParameterException", "the version to remove the stage from does not hold it")
			return
		}
		f.moveStage(stage, to)
		if stage == stageCurrent && from != "" {
			f.moveStage("AWSPREVIOUS", from)
		}
		fakeJSON(w, map[string]any{"ARN": f.arn})
	default:
		fakeError(w, "InvalidRequestException", "unsupported operation "+op)
	}
}

func fakeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	_ = json.NewEncoder(w).Encode(v)
}

func fakeError(w http.ResponseWriter, code, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-Errortype", code)
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": code, "message": msg})
}

// rotate runs a whole rotation the way Secrets Manager drives it.
func rotate(t *testing.T, ctx context.Context, f *fakeSecretsManager, r *Rotator, token string) {
	t.Helper()
	f.startRotation(token)
	for _, step := range []string{"createSecret", "setSecret", "testSecret", "finishSecret"} {
		if err := r.Handle(ctx, rotationEvent(step, token)); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
}
