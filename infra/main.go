// Command infra is the CDK app of the backend (cdk.json runs it with
// `go run ./infra`). It expects the functions prebuilt by `make build`
// under build/<function>/bootstrap, so synthesis needs neither Docker nor a
// Go toolchain inside a bundling step.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/groups"
)

// buildDir is where `make build` writes the bootstraps, relative to the
// repository root, where the cdk CLI runs the app.
const buildDir = "build"

func main() {
	defer jsii.Close()

	if err := checkBuild(buildDir); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}

	a := awscdk.NewApp(nil)
	ops, err := OpsFromContext(a.Node())
	if err == nil {
		region := ""
		if e := env(); e != nil {
			region = *e.Region
		}
		err = checkWAFRegion(ops, region)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	sam := fmt.Sprint(a.Node().TryGetContext(jsii.String(CtxSAM))) == "true"
	stack := NewBackendStack(a, "BookPlatformBackend", &BackendStackProps{
		StackProps:              awscdk.StackProps{Env: env()},
		BuildDir:                buildDir,
		StorefrontOrigin:        contextString(a, "storefrontOrigin"),
		StoreDomainTargetSuffix: contextString(a, "storeDomainTargetSuffix"),
		PlatformDomain:          contextString(a, "platformDomain"),
		ExtPosBaseURL:           contextString(a, "extposBaseUrl"),
		ExtPosClientID:          contextString(a, "extposClientId"),
		ExtPosRedirectURL:       contextString(a, "extposRedirectUrl"),
		AppURL:                  contextString(a, "appUrl"),
		ExtPosClientSecretARN:   contextString(a, "extposClientSecretArn"),
		StripeAPIKeySecretARN:   contextString(a, "stripeApiKeySecretArn"),
		StripeWebhookSecretARN:  contextString(a, "stripeWebhookSecretArn"),
		MailFromDomain:          contextString(a, CtxMailFromDomain),
		MailFrom:                contextString(a, CtxMailFrom),
		Ops:                     ops,
		SAM:                     sam,
	})
	assembly := a.Synth(nil)
	if sam {
		dataDir := os.Getenv(config.EnvLocalDataDir)
		if dataDir == "" {
			dataDir = ".local"
		}
		tmpl := assembly.GetStackByName(stack.StackName()).Template().(map[string]any)
		if err := writeSAM(*assembly.Directory(), tmpl, dataDir); err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(1)
		}
	}
}

// checkBuild fails with an actionable message before CDK fails with a
// JavaScript stack trace about a missing asset path.
func checkBuild(dir string) error {
	for _, f := range groups.Functions() {
		p := filepath.Join(dir, f.Name, "bootstrap")
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%s is missing: run `make build` first (make synth does)", p)
		}
	}
	return nil
}

// env pins the stack to the CLI's account and region when it knows them
// (CDK_DEFAULT_*); otherwise the stack stays environment-agnostic, which
// is all synthesis without credentials can do.
func env() *awscdk.Environment {
	account, region := os.Getenv("CDK_DEFAULT_ACCOUNT"), os.Getenv("CDK_DEFAULT_REGION")
	if account == "" || region == "" {
		return nil
	}
	return &awscdk.Environment{Account: jsii.String(account), Region: jsii.String(region)}
}

// contextString reads a CDK context value (cdk.json or -c name=value), ""
// when unset.
func contextString(a awscdk.App, name string) string {
	if v, ok := a.Node().TryGetContext(jsii.String(name)).(string); ok {
		return v
	}
	return ""
}
