package sdk

import (
	"encoding/json"
	"io"
	"net/http"
)

// maxAnswerBytes bounds how much of a remote's answer Exchange reads.
const maxAnswerBytes = 1 << 20

// Exchange sends req with client and reads the answer (at most 1 MiB), the
// way destination plugins talk to REST APIs. A request that gets no answer
// becomes [RequestError]; an answer that is not 2xx becomes [RemoteError]
// carrying the remote's own message (see [RemoteMessage]), so the host
// retries 429 and 5xx and reports the rest. It returns the header and body
// of a 2xx answer.
func Exchange(client *http.Client, req *http.Request, service string) (http.Header, []byte, error) {
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, RequestError(service, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return nil, nil, RequestError(service, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, nil, RemoteError(service, resp.StatusCode, resp.Header, RemoteMessage(body))
	}
	return resp.Header, body, nil
}

// ExchangeJSON is [Exchange] followed by decoding a 2xx JSON answer into out
// (nil: the body is ignored).
func ExchangeJSON(client *http.Client, req *http.Request, service string, out any) error {
	_, body, err := Exchange(client, req, service)
	if err != nil || out == nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return Errorf(CodeRemote, "%s answered %s %s with unreadable JSON", service, req.Method, req.URL.Path)
	}
	return nil
}

// RemoteMessage extracts the message of a JSON error body in the shape most
// REST APIs use ({"code": ..., "message": ..., "details": [...]}): "code:
// message", followed by the first detail when there is one. It returns ""
// for a body it cannot read, and RemoteError then uses the status text.
func RemoteMessage(body []byte) string {
	var e struct {
		Code    any               `json:"code"`
		Message string            `json:"message"`
		Details []json.RawMessage `json:"details"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	msg := e.Message
	if code, ok := e.Code.(string); ok && code != "" {
		msg = code + ": " + msg
	}
	if len(e.Details) > 0 {
		msg += " " + string(e.Details[0])
	}
	return msg
}
