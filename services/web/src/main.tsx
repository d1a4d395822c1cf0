import "@picocss/pico/css/pico.min.css";
import "./app.css";
import { render } from "preact";
import { Link, Route, Switch, useLocation } from "wouter-preact";
import { session } from "./api";
import { SignIn } from "./pages/sign-in";
import { TranscriptList } from "./pages/transcript-list";
import { TranscriptPage } from "./pages/transcript-page";

function Nav() {
  const [, navigate] = useLocation();
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
          {session.token() ? (
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
        <Switch>
          <Route path="/signin" component={SignIn} />
          <Route path="/transcripts/:id">{(params) => <TranscriptPage id={params.id} />}</Route>
          <Route path="/transcripts" component={TranscriptList} />
          <Route path="/" component={TranscriptList} />
          <Route>
            <h1>Not found</h1>
          </Route>
        </Switch>
      </main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
