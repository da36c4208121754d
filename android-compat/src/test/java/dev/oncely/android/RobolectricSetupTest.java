package dev.oncely.android;

import static org.assertj.core.api.Assertions.assertThat;

import android.content.Context;
import android.os.Build;
import org.robolectric.RuntimeEnvironment;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.annotation.Config;

/** Proves the offline Robolectric setup: the SDK 35 framework loads without any download. */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = 35, manifest = Config.NONE)
public class RobolectricSetupTest {

  @Test
  public void framework_runs_offline_at_sdk_35_with_a_no_backup_dir() {
    Context context = RuntimeEnvironment.getApplication();
    assertThat(Build.VERSION.SDK_INT).isEqualTo(35);
    assertThat(context.getNoBackupFilesDir()).isDirectory();
  }
}
