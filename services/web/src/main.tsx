import "@picocss/pico/css/pico.min.css";
import "./app.css";
import { render } from "preact";
import { lazy, Suspense } from "preact/compat";
import { Link, Route, Switch, useLocation } from "wouter-preact";
import { session } from "./api";
import { useAppConfig } from "./app-config";
import { whoAmI } from "./me";
import { SignIn } from "./pages/sign-in";
import { TranscriptList } from "./pages/transcript-list";
import { prefetchTranscriptPage } from "./transcript-prefetch";

// Before anything renders: a transcript page's data loads while its code does, and so does who the
// user is (pages show their owner's controls from it).
prefetchTranscriptPage(location.pathname);
void whoAmI();

// Pages loaded on first visit, so the first load stays small.
const TranscriptPage = lazy(() => import("./pages/transcript-page").then((m) => m.TranscriptPage));
const Rooms = lazy(() => import("./pages/rooms").then((m) => m.Rooms));
const RoomPage = lazy(() => import("./pages/room-page").then((m) => m.RoomPage));
const ApiKeys = lazy(() => import("./pages/api-keys").then((m) => m.ApiKeys));
const Upload = lazy(() => import("./pages/upload").then((m) => m.Upload));
const LiveRecording = lazy(() => import("./pages/live").then((m) => m.LiveRecording));
const AuthCallback = lazy(() => import("./pages/auth-callback").then((m) => m.AuthCallback));

function Nav() {
  const [, navigate] = useLocation();
  const config = useAppConfig();
  return (
    <nav class="container">
      <ul>
        <li>
          <Link href="/">
            <strong>Scribe</strong>
          </Link>
        </li>
      </ul>
      <ul>
        <li>
          <Link href="/transcripts">Transcripts</Link>
        </li>
        <li>
          <Link href="/rooms">Rooms</Link>
        </li>
        <li>
          <Link href="/api-keys">API keys</Link>
        </li>
        <li>
          <Link href="/upload">Upload</Link>
        </li>
        <li>
          <Link href="/live">Record</Link>
        </li>
        <li>
          {/* AUTH_BACKEND=none has no accounts: nothing to sign in to. */}
          {config?.auth_backend === "none" ? null : session.token() ? (
            <button
              class="outline secondary"
              onClick={() => {
                session.signOut();
                navigate("/signin");
              }}
            >
              Sign out
            </button>
          ) : (
            <Link href="/signin">Sign in</Link>
          )}
        </li>
      </ul>
    </nav>
  );
}

function App() {
  return (
    <>
      <Nav />
      <main class="container">
        <Suspense fallback={<p aria-busy="true">Loading…</p>}>
          <Switch>
            <Route path="/signin" component={SignIn} />
            <Route path="/auth/callback" component={AuthCallback} />
            <Route path="/upload" component={Upload} />
            <Route path="/live" component={LiveRecording} />
            <Route path="/transcripts/:id">{(params) => <TranscriptPage id={params.id} />}</Route>
            <Route path="/transcripts" component={TranscriptList} />
            <Route path="/" component={TranscriptList} />
            <Route path="/rooms" component={Rooms} />
            {/* Every room, also one named like a page of the app or a path of the gateway (room-paths.ts). */}
            <Route path="/rooms/:room">{(params) => <RoomPage name={decodeURIComponent(params.room)} />}</Route>
            <Route path="/api-keys" component={ApiKeys} />
            {/* Last: a room's page at /<room name>, so every named page above wins over a room called the same. */}
            <Route path="/:room">{(params) => <RoomPage name={decodeURIComponent(params.room)} />}</Route>
            <Route>
              <h1>Not found</h1>
            </Route>
          </Switch>
        </Suspense>
      </main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
