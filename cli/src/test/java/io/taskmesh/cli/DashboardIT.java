package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.schemas.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard as a person uses it, in Debian's headless Chromium driven over WebDriver, against a
 * real dev stack (gateway, sidecars and Python runtimes on the shared broker and Postgres): start a
 * flow from its form, watch the route fill, the tokens grow and the result arrive, then find the
 * tasks in the live list, a task started elsewhere appearing without a reload.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DashboardIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String KEY = "dashboard-it-key";
  @TempDir static Path data;
  private static DevStack stack;
  private static String base;
  private static ChromeDriver browser;

  @BeforeAll
  static void start() {
    Path chromium = TestTools.require("chromium", "chromium");
    Path driver = TestTools.require("chromedriver", "chromium-driver");
    // the gateway wants an API key: the page signs in, and its event streams go by the cookie
    stack =
        TestStacks.onSharedBrokerWithKey(TestStacks.root().resolve("examples"), data, "ui", KEY);
    base = stack.gatewayUrl();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium.toFile());
    // root in a container: no sandbox; /dev/shm may be small
    options.addArguments(
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000");
    ChromeDriverService service =
        new ChromeDriverService.Builder().usingDriverExecutable(driver.toFile()).build();
    browser = new ChromeDriver(service, options);
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.quit();
    }
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void theSignInFormRefusesAWrongTokenAndTheRightOneStreamsAFlowLive() {
    browser.get(base + "/ui/");
    signOut();
    browser.get(base + "/ui/");
    await(d -> d.findElement(By.id("login-token")).isDisplayed());
    assertThat(browser.findElement(By.id("home")).isDisplayed()).isFalse();

    browser.findElement(By.id("login-token")).sendKeys("not-the-key");
    browser.findElement(By.cssSelector("#login-form button")).click();
    await(d -> text("login-error").equals("The gateway refused this token."));
    assertThat(browser.findElement(By.id("home")).isDisplayed()).isFalse();

    browser.findElement(By.id("login-token")).sendKeys(KEY);
    browser.findElement(By.cssSelector("#login-form button")).click();
    WebElement form = await(d -> d.findElement(By.cssSelector("form[data-flow=countdown]")));
    assertThat(browser.findElement(By.id("login")).isDisplayed()).isFalse();
    assertThat(browser.manage().getCookieNamed("taskmesh_ui_token")).isNotNull();
    form.findElement(By.id("arg-countdown-text")).sendKeys("signed in");
    form.findElement(By.id("arg-countdown-seconds")).sendKeys("2");
    form.findElement(By.tagName("button")).click();
    // the task stream is an EventSource: it can only be authorized by the session cookie
    await(d -> d.getCurrentUrl().contains("#task/"));
    await(d -> !text("tokens").isEmpty());
    await(d -> text("task-status").equals("succeeded"));
    assertThat(text("outcome")).contains("\"text\": \"signed in\"");
  }

  @Test
  void aFailedTaskNamesItsActorAndShowsTheTracebackFolded() throws Exception {
    String id = callTool("divide", "{\"a\":1,\"b\":0}");
    browser.get(base + "/ui/#task/" + id);
    signIn();
    await(d -> text("task-status").equals("failed"));
    assertThat(text("outcome"))
        .isEqualTo("ZeroDivisionError: float division by zero (in actor divide)");
    WebElement traceback = browser.findElement(By.id("traceback"));
    assertThat(traceback.isDisplayed()).isTrue();
    assertThat(traceback.getDomProperty("open")).isEqualTo("false"); // folded until asked
    assertThat(text("traceback-title")).isEqualTo("Traceback of divide");
    traceback.findElement(By.tagName("summary")).click();
    await(d -> d.findElement(By.id("traceback-text")).isDisplayed());
    assertThat(text("traceback-text"))
        .startsWith("Traceback (most recent call last):")
        .contains("calc.py")
        .endsWith("ZeroDivisionError: float division by zero");
  }

  @Test
  void aPausedTaskShowsTheHandlersQuestionAndTakesTheAnswerFromThePage() throws Exception {
    String id = callTool("interview", "{\"text\":\"colours\"}");
    browser.get(base + "/ui/#task/" + id);
    signIn();
    await(d -> d.findElement(By.id("ask")).isDisplayed());
    assertThat(text("ask-question")).isEqualTo("What is your name?");
    browser.findElement(By.id("ask-answer")).sendKeys("Ada");
    browser.findElement(By.cssSelector("#ask button")).click();
    await(d -> text("ask-question").equals("What is your favourite colour?"));
    browser.findElement(By.id("ask-answer")).sendKeys("green");
    browser.findElement(By.cssSelector("#ask button")).click();
    await(d -> text("task-status").equals("succeeded"));
    assertThat(browser.findElement(By.id("ask")).isDisplayed()).isFalse();
    assertThat(text("outcome")).contains("Hello Ada, green it is.");
  }

  @Test
  void aFlowServedOnlyAsAnA2aSkillStartsFromItsFormToo() throws Exception {
    browser.get(base + "/ui/");
    signIn();
    WebElement form = await(d -> d.findElement(By.cssSelector("form[data-flow=review]")));
    form.findElement(By.tagName("textarea")).sendKeys("{\"text\":\"a draft\"}");
    form.findElement(By.tagName("button")).click();

    await(d -> d.getCurrentUrl().contains("#task/"));
    await(d -> d.findElement(By.id("ask")).isDisplayed());
    assertThat(text("task-status")).isEqualTo("paused");
    browser.findElement(By.id("ask-answer")).sendKeys("yes");
    browser.findElement(By.cssSelector("#ask button")).click();
    await(d -> text("task-status").equals("succeeded"));
    assertThat(text("outcome")).contains("\"published\": true");
  }

  @Test
  void aPersonStartsAFlowFromTheFormAndWatchesItToTheResult() throws Exception {
    browser.get(base + "/ui/");
    signIn();
    WebElement form = await(d -> d.findElement(By.cssSelector("form[data-flow=countdown]")));
    form.findElement(By.id("arg-countdown-text")).sendKeys("lift off");
    form.findElement(By.id("arg-countdown-seconds")).sendKeys("3");
    form.findElement(By.tagName("button")).click();

    await(d -> d.getCurrentUrl().contains("#task/"));
    String id = browser.getCurrentUrl().replaceAll(".*#task/", "");
    assertThat(text("task-id")).isEqualTo(id);
    // while it runs: the actor is filling and the tokens grow (one every half second)
    await(d -> d.findElement(By.cssSelector("li.actor.processing[data-actor=countdown]")));
    await(d -> !text("tokens").isEmpty());
    String early = text("tokens");
    await(d -> text("tokens").length() > early.length());
    assertThat(text("task-status")).isEqualTo("running");

    await(d -> text("task-status").equals("succeeded"));
    assertThat(browser.findElement(By.id("tokens")).getDomProperty("textContent"))
        .isEqualTo("3s 2.5s 2s 1.5s 1s 0.5s ");
    assertThat(text("outcome")).contains("\"text\": \"lift off\"", "\"counted_seconds\": 3");
    assertThat(text("task-percent")).isEqualTo("100%");
    WebElement actor = browser.findElement(By.cssSelector("li.actor[data-actor=countdown]"));
    assertThat(actor.getAttribute("class")).contains("completed");
    // started → ended (duration): the countdown took its three seconds
    assertThat(actor.findElement(By.className("time")).getText()).matches(".*\\(\\d\\.\\d\\d s\\)");
    assertThat(text("task-times")).contains("created", "took");
    save("dashboard-task.png");
  }

  @Test
  void aThreeActorRouteFillsActorByActorAndTheListFollowsLive() throws Exception {
    browser.get(base + "/ui/");
    browser.navigate().refresh(); // a page of its own, not the hash change of the last test's
    signIn();
    WebElement form = await(d -> d.findElement(By.cssSelector("form[data-flow=shout]")));
    form.findElement(By.id("arg-shout-text")).sendKeys("abc def");
    form.findElement(By.tagName("button")).click();
    await(d -> d.getCurrentUrl().contains("#task/"));
    String shout = browser.getCurrentUrl().replaceAll(".*#task/", "");
    await(d -> text("task-status").equals("succeeded"));
    List<WebElement> actors = browser.findElements(By.cssSelector("li.actor"));
    assertThat(actors)
        .extracting(a -> a.getAttribute("data-actor"))
        .containsExactly("upper", "reverse", "count");
    assertThat(actors).allSatisfy(a -> assertThat(a.getAttribute("class")).contains("completed"));
    assertThat(text("outcome")).contains("\"text\": \"FED CBA\"", "\"length\": 7");
    assertThat(text("updates")).contains("upper", "reverse", "count", "succeeded");

    browser.get(base + "/ui/#");
    await(d -> d.findElement(By.cssSelector("tr[data-task='" + shout + "']")));
    await(d -> text("conn").equals("live"));
    // a task started by another client appears, and its status changes in place
    String other = callTool("countdown", "{\"text\":\"elsewhere\",\"seconds\":2}");
    By row = By.cssSelector("tr[data-task='" + other + "']");
    await(d -> d.findElement(row).getText().contains("running"));
    await(d -> d.findElement(row).getText().contains("succeeded"));
    String done = await(d -> d.findElement(row).getText());
    assertThat(done).contains("countdown", "100%");

    new Select(browser.findElement(By.id("filter-flow"))).selectByVisibleText("shout");
    await(d -> d.findElements(row).isEmpty());
    assertThat(browser.findElements(By.cssSelector("tr[data-task='" + shout + "']"))).hasSize(1);
    new Select(browser.findElement(By.id("filter-flow"))).selectByVisibleText("any");
    new Select(browser.findElement(By.id("filter-status"))).selectByVisibleText("succeeded");
    await(d -> !d.findElements(row).isEmpty());
    save("dashboard-home.png");
  }

  @Test
  void aMeshApiEnvelopeAppearsInTheEnvelopesPanelAndChangesStatusLive() throws Exception {
    browser.get(base + "/ui/#");
    browser.navigate().refresh();
    signIn();
    await(d -> d.findElement(By.id("mesh-live")).isDisplayed());
    String id = createEnvelope("countdown", "{\"text\":\"from mesh-api\",\"seconds\":3}");
    By row = By.id("envelope-" + id);
    // first seen while the actor works, then in place as it ends: both from the event stream
    await(d -> d.findElement(row).getText().contains("running"));
    await(d -> d.findElement(row).getText().contains("succeeded"));
    assertThat(browser.findElement(row).getText()).contains("100%");

    browser.findElement(row).click();
    await(d -> text("mesh-detail-id").equals(id));
    await(d -> text("mesh-detail-body").contains("\"counted_seconds\": 3"));
    assertThat(text("mesh-detail-body")).contains("\"status\": \"succeeded\"");
    browser.executeScript("document.getElementById('mesh').scrollIntoView()");
    save("dashboard-envelopes.png");

    // a fresh page lists it from mesh-api (the proxied list)
    browser.navigate().refresh();
    await(d -> d.findElement(row).getText().contains("succeeded"));
  }

  private static String createEnvelope(String actor, String payload) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(stack.meshApiUrl() + "/api/v1/mesh/?actor=" + actor))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"payload\":" + payload + "}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return Json.MAPPER.readTree(r.body()).get("id").asText();
  }

  private static String callTool(String name, String arguments) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + "/tools/call"))
                    .header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + KEY)
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"name\":\"" + name + "\",\"arguments\":" + arguments + "}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return Json.MAPPER.readTree(r.body()).at("/structuredContent/task_id").asText();
  }

  /** Signs in through the form when the page asks (the token then lasts for this tab). */
  private static void signIn() {
    await(
        d ->
            d.findElement(By.id("login")).isDisplayed()
                || d.findElement(By.id("home")).isDisplayed()
                || d.findElement(By.id("task")).isDisplayed());
    if (browser.findElement(By.id("login")).isDisplayed()) {
      browser.findElement(By.id("login-token")).sendKeys(KEY);
      browser.findElement(By.cssSelector("#login-form button")).click();
      await(d -> !d.findElement(By.id("login")).isDisplayed());
    }
  }

  /** The page's sign-out: its token and its cookie are gone. */
  private static void signOut() {
    signIn();
    WebElement out = browser.findElement(By.id("signout"));
    if (out.isDisplayed()) {
      out.click();
    }
    await(d -> d.findElement(By.id("login")).isDisplayed());
    assertThat(browser.manage().getCookieNamed("taskmesh_ui_token")).isNull();
  }

  private static String text(String id) {
    return browser.findElement(By.id(id)).getText();
  }

  private static <T> T await(Function<WebDriver, T> condition) {
    // a list row or actor box may be redrawn between finding it and reading it
    return new WebDriverWait(browser, WAIT, Duration.ofMillis(50))
        .ignoring(StaleElementReferenceException.class)
        .until(condition::apply);
  }

  private static void save(String name) throws Exception {
    Path img = Files.createDirectories(TestStacks.root().resolve("docs").resolve("img"));
    Files.write(img.resolve(name), browser.getScreenshotAs(OutputType.BYTES));
  }
}
