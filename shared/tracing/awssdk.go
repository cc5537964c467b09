package tracing

import (
	"context"
	"fmt"
	"slices"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// The SDK middleware below replaces OpenTelemetry's otelaws, whose
// attribute builders import the SQS and SNS clients for their input
// types: with it every function linked both (and ran their package
// init) whatever its group called. This one names spans and sets
// attributes as otelaws v0.67 did, for what the service calls; the
// exporter (xray.go) reads them back.

// sdkInstrumentationName names the SDK calls' spans.
const sdkInstrumentationName = "github.com/bookplatform/backend/shared/tracing"

// Attributes of an SDK call's span (OpenTelemetry semantic conventions
// v1.40, as otelaws sets them; rpc.service is also given on its own).
const (
	AttrRPCSystem    = attribute.Key("rpc.system.name") // "aws-api"
	AttrRPCService   = attribute.Key("rpc.service")     // "DynamoDB"
	AttrRPCMethod    = attribute.Key("rpc.method")      // "DynamoDB/GetItem"
	AttrRegion       = attribute.Key("aws.region")
	AttrRequestID    = attribute.Key("aws.request_id")
	AttrDBSystem     = attribute.Key("db.system.name")           // "aws.dynamodb"
	AttrDynamoTables = attribute.Key("aws.dynamodb.table_names") // the tables the call names
	AttrErrorType    = attribute.Key("error.type")
)

// sdkMiddleware adds to every operation of a client: a span around the
// whole call (retries included) once the operation's service, name and
// region are known (the end of the Initialize step), and, per attempt,
// the HTTP status and request id of the answer (the Deserialize step).
func sdkMiddleware(tracer trace.Tracer) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		if err := stack.Initialize.Add(middleware.InitializeMiddlewareFunc("TracingSpan", func(
			ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler,
		) (middleware.InitializeOutput, middleware.Metadata, error) {
			service, operation := awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx)
			attrs := []attribute.KeyValue{
				AttrRPCSystem.String("aws-api"),
				AttrRPCService.String(service),
				AttrRPCMethod.String(service + "/" + operation),
				AttrRegion.String(awsmiddleware.GetRegion(ctx)),
			}
			if service == dynamodb.ServiceID {
				attrs = append(attrs, AttrDBSystem.String("aws.dynamodb"))
				if tables := dynamoTables(in.Parameters); len(tables) > 0 {
					attrs = append(attrs, AttrDynamoTables.StringSlice(tables))
				}
			}
			ctx, span := tracer.Start(ctx, service+"."+operation,
				trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
			defer span.End()
			out, md, err := next.HandleInitialize(ctx, in)
			if err != nil {
				span.SetAttributes(AttrErrorType.String(fmt.Sprintf("%T", err)))
				span.SetStatus(codes.Error, err.Error())
			}
			return out, md, err
		}), middleware.After); err != nil {
			return err
		}
		return stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc("TracingResponse", func(
			ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler,
		) (middleware.DeserializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleDeserialize(ctx, in)
			if resp, ok := out.RawResponse.(*smithyhttp.Response); ok {
				span := trace.SpanFromContext(ctx)
				span.SetAttributes(AttrStatus.Int(resp.StatusCode))
				if id, ok := awsmiddleware.GetRequestIDMetadata(md); ok {
					span.SetAttributes(AttrRequestID.String(id))
				}
			}
			return out, md, err
		}), middleware.Before)
	}
}

// dynamoTables are the tables a DynamoDB call names, each once and in
// order, for the operations the service calls.
func dynamoTables(params any) []string {
	var names []*string
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		names = append(names, in.TableName)
	case *dynamodb.PutItemInput:
		names = append(names, in.TableName)
	case *dynamodb.UpdateItemInput:
		names = append(names, in.TableName)
	case *dynamodb.DeleteItemInput:
		names = append(names, in.TableName)
	case *dynamodb.QueryInput:
		names = append(names, in.TableName)
	case *dynamodb.ScanInput:
		names = append(names, in.TableName)
	case *dynamodb.DescribeTableInput:
		names = append(names, in.TableName)
	case *dynamodb.CreateTableInput:
		names = append(names, in.TableName)
	case *dynamodb.DeleteTableInput:
		names = append(names, in.TableName)
	case *dynamodb.BatchGetItemInput:
		for t := range in.RequestItems {
			names = append(names, &t)
		}
	case *dynamodb.BatchWriteItemInput:
		for t := range in.RequestItems {
			names = append(names, &t)
		}
	case *dynamodb.TransactGetItemsInput:
		for _, it := range in.TransactItems {
			if it.Get != nil {
				names = append(names, it.Get.TableName)
			}
		}
	case *dynamodb.TransactWriteItemsInput:
		for _, it := range in.TransactItems {
			switch {
			case it.Put != nil:
				names = append(names, it.Put.TableName)
			case it.Update != nil:
				names = append(names, it.Update.TableName)
			case it.Delete != nil:
				names = append(names, it.Delete.TableName)
			case it.ConditionCheck != nil:
				names = append(names, it.ConditionCheck.TableName)
			}
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		if n != nil && *n != "" && !seen[*n] {
			seen[*n] = true
			out = append(out, *n)
		}
	}
	slices.Sort(out)
	return out
}
